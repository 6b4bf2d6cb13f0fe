/**
 * `npm run bench -- --only callgrind`: instructions per call of the server's serving process,
 * counted by valgrind's callgrind, for the bare proxy (b), the gateway's master key (c) and its
 * virtual key (d). Counting starts off (`--instr-atstart=no`), so start-up is never counted; after
 * a warm-up it is switched on with `callgrind_control` around a window of N calls and one of 2N,
 * and the difference of the two over N is the calls' own work: what a window costs besides its
 * calls (timers, the switch itself) cancels. Each window is dumped and its garbage collection
 * counted apart (bench/callgrind-gc.ts): the difference is taken without it (the mutator), and the
 * collections of every window are shared over all their calls; the figure is the two summed. A
 * full collection costs more than a window's calls, so taken with the window it made a repeat
 * read anything from below zero to millions. Every measured process runs with
 * MEASURED_NODE_ARGS (below): without them the figure moved 50-240% run to run. Repeated, so the
 * spread shows. Instruction counts do not move with the load of a shared machine, where calls per
 * second move threefold.
 *
 * Knobs: BENCH_CALLGRIND_CALLS (N, 200), BENCH_CALLGRIND_WARMUP (calls before counting, 3000: at
 * 1000 the optimizing compiler was still at work in the counted windows),
 * BENCH_CALLGRIND_REPEATS (5), BENCH_CALLGRIND_CONNECTIONS (1), BENCH_CALLGRIND_NODE_ARGS (none); DATABASE_URL and REDIS_URL as for
 * `npm run bench`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { countLatestDump } from './callgrind-gc.ts';
import type { BudgetCheck } from './derived.ts';
import { type BenchEntry, budgetLine, type EntryReport } from './entries.ts';
import { FAKE_MODEL } from './fake-answers.ts';
import { freePort } from './free-port.ts';
import { buildGateway, startGateway } from './gateway-process.ts';
import { type BenchKey, createBenchDeployment, createBenchKey, waitServing } from './gateway-setup.ts';
import { machineInfo } from './machine.ts';
import { benchOptions } from './options.ts';
import { BENCH_MODEL, type BenchRequest, chatRequest } from './requests.ts';
import { type BenchStorage, prepareStorage } from './storage.ts';
import { startFakeUpstream, startPassthroughProxy, type Upstream } from './upstreams.ts';

/** The issue 36 budget: instructions per call as a multiple of the bare proxy's. */
const BUDGET = { master: 1.5, key: 2.0 };
/**
 * Flags of every measured process (the proxy and the gateway alike). All GC work on the main
 * thread: under valgrind threads take turns, so how much of the marking the helper threads did
 * instead of the main thread depended on the scheduler. No memory reducer: it starts major GCs
 * when a process goes idle, which the measure does between windows and steady load never does.
 */
const MEASURED_NODE_ARGS = ['--single-threaded-gc', '--no-memory-reducer'];

/**
 * MEASURED_NODE_ARGS and BENCH_CALLGRIND_NODE_ARGS: e.g. `--perf-basic-prof`, whose
 * /tmp/perf-<pid>.map names the JIT's code in the callgrind files.
 */
export function measuredNodeArgs(): string[] {
  const extra = (process.env.BENCH_CALLGRIND_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  return [...MEASURED_NODE_ARGS, ...extra];
}
export const INSTALL_HINT =
  'valgrind is not installed: `apt-get install valgrind` (Debian package), then `npm run bench -- --only callgrind`';

export interface Target {
  origin: string;
  /** The process that serves calls: the proxy itself, the gateway's one worker. */
  servingPid: number;
  /**
   * The target's HOST variable: valgrind names its vgdb pipes after it (`...-on-<HOST>`), so
   * callgrind_control must see the same value to find them (the gateway has HOST=127.0.0.1).
   */
  hostEnv: string | undefined;
  stop(): Promise<void>;
}

/** Instructions per call of the windows of one target. */
export interface WindowFigure {
  id: string;
  /** Instructions per call of the main (JavaScript) thread, one per repeat. */
  perCall: number[];
  /** The same over every thread (the JIT's compiler threads and the GC's helpers included). */
  allThreads: number[];
}

export interface Figure extends WindowFigure {
  /** The main thread's without the garbage collector's, one per repeat (bench/callgrind-gc.ts). */
  mutator: number[];
  /** The garbage collector's instructions over every counted window's calls. */
  gcPerCall: number;
}

/**
 * The figure of record: the calls' own work (the median of the repeats, which now agree) and the
 * collections shared over every counted call (a window's own share swung by a full collection).
 */
export function amortized(figure: Figure): number {
  return median(figure.mutator) + figure.gcPerCall;
}

interface Counts {
  main: number;
  all: number;
  /** The garbage collector's instructions (bench/callgrind-gc.ts), when the window was dumped. */
  gc: number;
}

export function hasValgrind(): boolean {
  return (
    spawnSync('valgrind', ['--version']).status === 0 && spawnSync('callgrind_control', ['-h']).status === 0
  );
}

export function callgrindWrapper(outDir: string): string[] {
  return [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--trace-children=yes',
    `--callgrind-out-file=${join(outDir, 'callgrind.%p.out')}`,
  ];
}

function control(target: Target, ...args: string[]): string {
  const { HOST: _host, ...env } = process.env;
  return execFileSync('callgrind_control', [...args, String(target.servingPid)], {
    encoding: 'utf8',
    env: target.hostEnv === undefined ? env : { ...env, HOST: target.hostEnv },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** Thread 1's instructions and every thread's (`Th N  1,234` lines of `callgrind_control -e`). */
function instructions(target: Target): Counts {
  const counts = { main: 0, all: 0, gc: 0 };
  for (const match of control(target, '-e').matchAll(/^\s*Th\s+(\d+)\s+([\d,]+)/gm)) {
    const value = Number(match[2].replaceAll(',', ''));
    counts.all += value;
    if (match[1] === '1') counts.main = value;
  }
  return counts;
}

/** `count` calls over `connections` connections, each connection sending its next when answered. */
export async function calls(pool: Pool, call: BenchRequest, count: number): Promise<void> {
  const { connections } = callgrindOptions();
  const share = (index: number) => Math.floor(count / connections) + (index < count % connections ? 1 : 0);
  await Promise.all(Array.from({ length: connections }, (_, index) => callsInTurn(pool, call, share(index))));
}

/**
 * undici's `dump()` reads 128 KiB at most: over that (by content-length, or once read) it closes the
 * connection, and the gateway then writes the rest of a large answer or stream to a client that left.
 */
const WHOLE_ANSWER = { limit: Number.MAX_SAFE_INTEGER };

/** `count` calls one after the other, each sent when the one before is answered (read whole). */
export async function callsInTurn(pool: Pool, call: BenchRequest, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const answer = await pool.request({
      method: call.method,
      path: call.path,
      headers: call.headers,
      body: call.body,
    });
    await answer.body.dump(WHOLE_ANSWER);
    if (answer.statusCode !== 200) throw new Error(`${call.path} answered ${answer.statusCode}`);
  }
}

/**
 * One window of `count` calls counted. With `dumpDir` (callgrind's output directory), the window
 * is also dumped there and its GC instructions counted from the dump.
 */
export async function countedWindow(
  target: Target,
  pool: Pool,
  call: BenchRequest,
  count: number,
  dumpDir?: string,
): Promise<Counts> {
  control(target, '-z');
  control(target, '-i', 'on');
  await calls(pool, call, count);
  const counted = instructions(target);
  if (dumpDir !== undefined) {
    control(target, '-d');
    counted.gc = countLatestDump(dumpDir, target.servingPid).gc;
  }
  control(target, '-i', 'off');
  if (counted.all === 0) throw new Error(`callgrind counted nothing in pid ${target.servingPid}`);
  return counted;
}

/** `dumpDir`: callgrind's output directory, where each window is dumped and its GC counted. */
export async function measure(
  id: string,
  target: Target,
  call: BenchRequest,
  dumpDir: string,
): Promise<Figure> {
  const { calls: n, warmup, repeats } = callgrindOptions();
  const pool = new Pool(target.origin, { connections: callgrindOptions().connections });
  try {
    await calls(pool, call, warmup);
    const figure: Figure = { id, perCall: [], allThreads: [], mutator: [], gcPerCall: 0 };
    let gc = 0;
    for (let i = 0; i < repeats; i++) {
      const one = await countedWindow(target, pool, call, n, dumpDir);
      const two = await countedWindow(target, pool, call, 2 * n, dumpDir);
      figure.perCall.push(Math.round((two.main - one.main) / n));
      figure.allThreads.push(Math.round((two.all - one.all) / n));
      figure.mutator.push(Math.round((two.main - two.gc - (one.main - one.gc)) / n));
      gc += one.gc + two.gc;
    }
    figure.gcPerCall = Math.round(gc / (3 * n * repeats));
    process.stderr.write(
      `[callgrind] ${id}: main thread ${figure.perCall.join(', ')}; mutator ${figure.mutator.join(', ')}; GC ${figure.gcPerCall} per call; all ${figure.allThreads.join(', ')}\n`,
    );
    return figure;
  } finally {
    await pool.close();
  }
}

export function callgrindOptions() {
  const env = process.env;
  return {
    calls: Number(env.BENCH_CALLGRIND_CALLS ?? 200),
    warmup: Number(env.BENCH_CALLGRIND_WARMUP ?? 3000),
    repeats: Number(env.BENCH_CALLGRIND_REPEATS ?? 5),
    connections: Number(env.BENCH_CALLGRIND_CONNECTIONS ?? 1),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export function spread(values: number[]): string {
  const low = Math.min(...values);
  return `${(((Math.max(...values) - low) / low) * 100).toFixed(1)}%`;
}

function render(figures: Figure[]): string {
  const machine = machineInfo();
  const proxy = figures.find((f) => f.id === 'b');
  const ratio = (value: number, of: number | undefined) =>
    of === undefined ? '-' : `${(value / of).toFixed(2)}x`;
  return [
    "callgrind: instructions per call of the serving process's main thread after warm-up: the calls' own work (the mutator, per repeat) and the garbage collector's, shared over every counted call (bench/callgrind-gc.ts)",
    `machine: ${machine.cores} cores, ${machine.cpuModel}, Node ${machine.node}, commit ${machine.commit}`,
    "| target | mutator + GC per call | ratio to (b) | mutator (median) | its ratio to (b)'s | mutator repeats | spread | GC per call | main thread with its windows' GC (median; repeats) | all threads (median) |",
    '|---|---|---|---|---|---|---|---|---|---|',
    ...figures.map((figure) => {
      const value = amortized(figure);
      const mutator = median(figure.mutator);
      return `| ${figure.id} | ${value.toLocaleString('en')} | ${ratio(value, proxy && amortized(proxy))} | ${mutator.toLocaleString('en')} | ${ratio(mutator, proxy && median(proxy.mutator))} | ${figure.mutator.join(', ')} | ${spread(figure.mutator)} | ${figure.gcPerCall.toLocaleString('en')} | ${median(figure.perCall).toLocaleString('en')}; ${figure.perCall.join(', ')} | ${median(figure.allThreads).toLocaleString('en')} |`;
    }),
  ].join('\n');
}

function figureOf(figures: readonly Figure[], id: string): number | null {
  const figure = figures.find((f) => f.id === id);
  return figure === undefined ? null : amortized(figure);
}

/** Budget line 1: (c) and (d) as multiples of (b), the bare proxy measured in the same run. */
function budget(figures: readonly Figure[]): BudgetCheck[] {
  const proxy = figureOf(figures, 'b');
  const ratio = (id: string) => {
    const value = figureOf(figures, id);
    return value === null || proxy === null ? null : value / proxy;
  };
  return [
    budgetLine(
      '(c) master key: instructions per call <= 1.5x the bare proxy (b)',
      ratio('c'),
      BUDGET.master,
      'x',
    ),
    budgetLine(
      '(d) virtual key: instructions per call <= 2.0x the bare proxy (b)',
      ratio('d'),
      BUDGET.key,
      'x',
    ),
  ];
}

export async function gatewayTarget(
  outDir: string,
  storage: Awaited<ReturnType<typeof prepareStorage>>,
): Promise<Target> {
  const gateway = await startGateway(
    {
      label: 'callgrind',
      workers: 1,
      logLevel: 'info',
      responseCacheTtlMs: 0,
      cores: null,
      cpuProfileDir: null,
      nodeArgs: measuredNodeArgs(),
      logFile: join(outDir, 'gateway.log'),
      port: await freePort(),
      wrapper: callgrindWrapper(outDir),
    },
    // Under valgrind a Redis or Postgres answer can take longer than the default 1 s bound, and a
    // 503 would end the count; the bound's value does not change what a call executes. V8's own
    // first old-generation limit: the count sees a few thousand calls, and the 64 MiB limit puts
    // full collections in its short windows far more often than load does (docs/performance.md,
    // Memory, Stop 49).
    {
      ...storage,
      env: { ...storage.env, DEPENDENCY_TIMEOUT_MS: '60000', WORKER_INITIAL_OLD_SPACE_MB: '0' },
    },
  );
  const [, worker] = gateway.pids();
  if (worker === undefined) throw new Error('the gateway has no worker process');
  return { origin: gateway.origin, servingPid: worker, hostEnv: '127.0.0.1', stop: () => gateway.stop() };
}

/** What an entry measuring under callgrind is given: where its files go, the storage, the fake. */
export interface CallgrindRun {
  outDir: string;
  storage: BenchStorage;
  fake: Upstream;
}

/**
 * The build, the storage and the fake upstream of one callgrind entry (files in
 * `<resultsDir>/<name>-<date>/`), torn down whatever `measure` does.
 */
export async function withCallgrindRun<T>(
  resultsDir: string,
  name: string,
  measure: (run: CallgrindRun) => Promise<T>,
): Promise<T> {
  const outDir = join(resultsDir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(outDir, { recursive: true });
  const options = benchOptions(process.env, resultsDir);
  buildGateway();
  const storage = await prepareStorage(options, join(outDir, 'migrate.log'));
  try {
    const fake = await startFakeUpstream(options, null);
    try {
      return await measure({ outDir, storage, fake });
    } finally {
      await fake.child.stop();
    }
  } finally {
    await storage.cleanup();
  }
}

/** The gateway under callgrind, with the bench deployment on the fake and one virtual key. */
export interface MeasuredGateway {
  target: Target;
  masterKey: string;
  key: BenchKey;
}

export async function withMeasuredGateway<T>(
  run: CallgrindRun,
  measure: (gateway: MeasuredGateway) => Promise<T>,
): Promise<T> {
  const target = await gatewayTarget(run.outDir, run.storage);
  try {
    const { masterKey } = run.storage;
    await createBenchDeployment(target.origin, masterKey, run.fake.origin);
    const key = await createBenchKey(target.origin, masterKey);
    return await measure({ target, masterKey, key });
  } finally {
    await target.stop();
  }
}

async function measureProxy(run: CallgrindRun): Promise<Figure> {
  const proxy = await startPassthroughProxy(
    run.fake.origin,
    null,
    callgrindWrapper(run.outDir),
    measuredNodeArgs(),
  );
  try {
    const target = {
      origin: proxy.origin,
      servingPid: proxy.child.pid,
      hostEnv: undefined,
      stop: () => proxy.child.stop(),
    };
    return await measure('b', target, chatRequest(FAKE_MODEL, 'sk-bench-upstream', false), run.outDir);
  } finally {
    await proxy.child.stop();
  }
}

/** Runs the measure; without valgrind the entry says how to get it and measures nothing. */
async function runCallgrind(resultsDir: string): Promise<EntryReport> {
  if (!hasValgrind()) {
    return { text: INSTALL_HINT, budget: budget([]), figures: null };
  }
  return withCallgrindRun(resultsDir, 'callgrind', async (run) => {
    const figures = [await measureProxy(run)];
    await withMeasuredGateway(run, async ({ target, masterKey, key }) => {
      const masterCall = chatRequest(BENCH_MODEL, masterKey, false);
      const keyCall = chatRequest(BENCH_MODEL, key.virtualKey, false);
      await waitServing(target.origin, masterCall);
      figures.push(await measure('c', target, masterCall, run.outDir));
      await waitServing(target.origin, keyCall);
      figures.push(await measure('d', target, keyCall, run.outDir));
    });
    return {
      text: `${render(figures)}\n(callgrind files in ${run.outDir})${attributionHint(run.outDir)}`,
      budget: budget(figures),
      figures,
    };
  });
}

/** With V8's perf map written, how to read where the instructions went (docs/performance.md, Profiling). */
function attributionHint(outDir: string): string {
  if (!measuredNodeArgs().includes('--perf-basic-prof')) return '';
  return `\n(by origin and function: node bench/callgrind-attribution.ts ${outDir} c; b and d alike)`;
}

export const callgrindEntry: BenchEntry = {
  id: 'callgrind',
  title: 'instructions per call under valgrind (budget line 1)',
  run: runCallgrind,
};
