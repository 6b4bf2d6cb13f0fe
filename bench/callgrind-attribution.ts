/**
 * `node bench/callgrind-attribution.ts <callgrind dir> [b|c|d] [--calls N] [--top N]`: where a
 * target's instructions per call go, read from the windows `npm run bench -- --only callgrind`
 * dumped into `bench/results/callgrind-<date>/`. Run the entry with
 * `BENCH_CALLGRIND_NODE_ARGS=--perf-basic-prof`: V8 then writes `/tmp/perf-<pid>.map`, which names
 * the JIT's code (callgrind sees only its addresses); without the map JavaScript reads as hex.
 *
 * Per target, the dumps of each repeat's two windows (N calls, then 2N) are subtracted, as the
 * entry subtracts its counts, and the self costs summed over the repeats and divided by their
 * calls. A function's self cost is its own instructions: the builtins a JavaScript function calls
 * (property loads, string adds, JSON) are charged to the builtin, not to it. A dump holds every
 * thread's work, so the optimizing compiler's (other threads) is shown apart; the entry's figure
 * is the main thread's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isGcFunction, selfCosts } from './callgrind-gc.ts';

/** Address ranges of the JIT's code and their names, from V8's `--perf-basic-prof` map. */
export class PerfMap {
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  readonly #names: string[] = [];

  constructor(text: string) {
    const entries: [number, number, string][] = [];
    for (const line of text.split('\n')) {
      const match = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/.exec(line);
      if (match === null) continue;
      const start = Number.parseInt(match[1], 16);
      entries.push([start, start + Number.parseInt(match[2], 16), match[3]]);
    }
    entries.sort((a, b) => a[0] - b[0]);
    for (const [start, end, name] of entries) {
      this.#starts.push(start);
      this.#ends.push(end);
      this.#names.push(name);
    }
  }

  /** The name of the code at a callgrind name such as `0x00003f1a2b3c4d5e`, or the name as it is. */
  nameOf(callgrindName: string): string {
    const match = /^0x([0-9a-f]+)$/.exec(callgrindName);
    if (match === null) return callgrindName;
    const address = Number.parseInt(match[1], 16);
    let low = 0;
    let high = this.#starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.#starts[middle] <= address) low = middle + 1;
      else high = middle - 1;
    }
    return high >= 0 && address < this.#ends[high] ? this.#names[high] : callgrindName;
  }
}

const COMPILER = /v8::internal::(?:compiler|maglev|baseline)::|turboshaft|v8::internal::Zone::/;

/**
 * Where a function belongs: a folder of the gateway's code, a package, a Node.js internal module,
 * V8's builtins, its compiler, the garbage collector, or the rest of the native code.
 */
export function originOf(name: string): string {
  const own = /\/(?:src|dist)\/([\w-]+)(?:\/|\.[jt]s:)/.exec(name);
  if (own !== null && !name.includes('/node_modules/')) return `switchyard ${own[1]}`;
  const pkg = /\/node_modules\/((?:@[\w.-]+\/)?[\w.-]+)\//.exec(name);
  if (pkg !== null) return pkg[1];
  const internal = /\bnode:((?:internal\/)?[\w]+)/.exec(name);
  if (internal !== null) return `node:${internal[1]}`;
  if (name.startsWith('Builtins_')) return 'V8 builtins';
  if (COMPILER.test(name)) return 'V8 compiler (other threads)';
  if (isGcFunction(name)) return 'garbage collector';
  return name.startsWith('JS:') ? 'other JavaScript' : 'native (V8 runtime, Node.js C++, libc)';
}

/**
 * Self cost per call of each function over the windows given as [N-call dump, 2N-call dump] pairs,
 * with the JIT's tier marks (`*`, `+`, `^`, `~`) dropped so a function reads as one line.
 */
export function selfPerCall(pairs: readonly (readonly [string, string])[], calls: number, map: PerfMap) {
  const costs = new Map<string, number>();
  const add = (text: string, sign: number) => {
    for (const [name, cost] of selfCosts(text)) {
      const named = map.nameOf(name).replace(/^JS:[*+^~']+/, 'JS:');
      costs.set(named, (costs.get(named) ?? 0) + sign * cost);
    }
  };
  for (const [first, second] of pairs) {
    add(first, -1);
    add(second, 1);
  }
  const perCall = new Map<string, number>();
  for (const [name, cost] of costs) perCall.set(name, cost / (calls * pairs.length));
  return perCall;
}

/** Sums per origin (originOf), largest first. */
export function byOrigin(perCall: ReadonlyMap<string, number>): [string, number][] {
  const sums = new Map<string, number>();
  for (const [name, cost] of perCall) {
    const origin = originOf(name);
    sums.set(origin, (sums.get(origin) ?? 0) + cost);
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
}

/** The numbered dumps of each process in `dir`: `callgrind.<pid>.out.<n>`, in order. */
export function dumpsByPid(dir: string): Map<number, string[]> {
  const dumps = new Map<number, [number, string][]>();
  for (const file of readdirSync(dir)) {
    const match = /^callgrind\.(\d+)\.out\.(\d+)$/.exec(file);
    if (match === null) continue;
    const pid = Number(match[1]);
    dumps.set(pid, [...(dumps.get(pid) ?? []), [Number(match[2]), join(dir, file)]]);
  }
  return new Map([...dumps].map(([pid, files]) => [pid, files.sort((a, b) => a[0] - b[0]).map((f) => f[1])]));
}

/**
 * The target's window pairs. The gateway's worker dumps two targets' windows, (c)'s then (d)'s, and
 * so holds twice the proxy's (b) dumps; `pid` picks the process when the directory holds others.
 */
export function windowsOf(
  dumps: ReadonlyMap<number, readonly string[]>,
  target: string,
  pid?: number,
): { pid: number; pairs: [string, string][] } {
  const byCount = [...dumps].sort((a, b) => a[1].length - b[1].length);
  const chosenPid = pid ?? (target === 'b' ? byCount[0] : byCount.at(-1))?.[0];
  const files = chosenPid === undefined ? undefined : dumps.get(chosenPid);
  if (chosenPid === undefined || files === undefined) throw new Error(`no windows of target ${target}`);
  const half = files.length / 2;
  const own = target === 'b' ? files : target === 'd' ? files.slice(half) : files.slice(0, half);
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < own.length; i += 2) pairs.push([own[i], own[i + 1]]);
  return { pid: chosenPid, pairs };
}

const USAGE =
  'usage: node bench/callgrind-attribution.ts <callgrind dir> [b|c|d] [--calls N] [--top N] [--pid P]';

function main(argv: readonly string[]): void {
  const [dir, target = 'c'] = argv.filter(
    (arg, i) => !arg.startsWith('--') && !argv[i - 1]?.startsWith('--'),
  );
  if (dir === undefined) throw new Error(USAGE);
  const option = (name: string, fallback?: number) => {
    const at = argv.indexOf(`--${name}`);
    return at === -1 ? fallback : Number(argv[at + 1]);
  };
  const { pid, pairs } = windowsOf(dumpsByPid(dir), target, option('pid'));
  let mapText = '';
  try {
    mapText = readFileSync(`/tmp/perf-${pid}.map`, 'utf8');
  } catch {
    process.stderr.write(
      `no /tmp/perf-${pid}.map: run the entry with BENCH_CALLGRIND_NODE_ARGS=--perf-basic-prof\n`,
    );
  }
  const perCall = selfPerCall(
    pairs.map(([first, second]) => [readFileSync(first, 'utf8'), readFileSync(second, 'utf8')]),
    option('calls', 200) as number,
    new PerfMap(mapText),
  );
  const round = (value: number) => Math.round(value).toLocaleString('en').padStart(9);
  const lines = [`target ${target}, pid ${pid}, ${pairs.length} repeat(s): self instructions per call`];
  for (const [origin, cost] of byOrigin(perCall))
    if (Math.abs(cost) >= 0.5) lines.push(`${round(cost)}  ${origin}`);
  lines.push('');
  const top = [...perCall].sort((a, b) => b[1] - a[1]).slice(0, option('top', 40) as number);
  for (const [name, cost] of top) lines.push(`${round(cost)}  ${name}`);
  // console, not process.stdout: it ignores a reader that left (`| head`).
  console.log(lines.join('\n'));
}

if (import.meta.main) main(process.argv.slice(2));
