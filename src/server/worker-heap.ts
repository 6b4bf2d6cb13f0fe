/**
 * Each worker's V8 heap (docs/configuration.md, Memory; docs/decisions/hot-path.md, "A young
 * generation sized for a server" and "The old generation's first limit set for a server"). With
 * gigabytes free, Node's defaults let the young generation grow to 64 MiB semi-spaces, which a
 * long-running server holds resident, and let the old generation fill under load to a first limit
 * V8 guessed at start-up; the pages and malloc memory that first cycle takes stay resident. A
 * first limit a worker reaches while it starts puts its first full collection there. After it, the
 * old generation's growth is V8's unless the operator sets it. Outside the V8 heap, glibc gives
 * each thread that allocates its own malloc arena (up to eight per core), and V8's helper threads
 * keep theirs resident; two arenas hold a worker smaller for no CPU the bench resolves
 * (docs/decisions/hot-path.md, Two malloc arenas per worker).
 */
import { setFlagsFromString } from 'node:v8';
import type { WorkerHeap } from '../config.ts';

const SEMI_SPACE_FLAG = '--max-semi-space-size';
const INITIAL_OLD_SPACE_FLAG = '--initial-old-space-size';
const GROWTH_FLAG = '--heap-growing-percent';
const EXTERNAL_MEMORY_FLAG = '--external-memory-accounted-in-global-limit';
const NO_EXTERNAL_MEMORY_FLAG = '--no-external-memory-accounted-in-global-limit';
const NO_EXTERNAL_MEMORY_FLAG_UNDASHED = '--noexternal-memory-accounted-in-global-limit';

/**
 * The value `flag` is given in Node's options, or undefined: the command line's last one, else
 * NODE_OPTIONS' (Node reads the command line after NODE_OPTIONS). The operator's value wins over
 * the gateway's defaults. V8 reads `_` and `-` alike in its flags.
 */
export function flagValue(
  flag: string,
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string | undefined {
  const valueIn = (args: readonly string[]) => {
    let value: string | undefined;
    for (let index = 0; index < args.length; index++) {
      const [name, given] = args[index].replaceAll('_', '-').split('=', 2);
      // `--flag=value`, or `--flag value`.
      if (name === flag) value = given ?? args[index + 1] ?? '';
    }
    return value;
  };
  return valueIn(execArgv) ?? valueIn((nodeOptions ?? '').split(/\s+/));
}

/** V8's options read once, when the heap is made, and so given on the worker's command line. */
function commandLineFlags(heap: WorkerHeap): [flag: string, mb: number][] {
  return [
    [SEMI_SPACE_FLAG, heap.semiSpaceMb],
    [INITIAL_OLD_SPACE_FLAG, heap.initialOldSpaceMb],
  ];
}

/**
 * The primary's `execArgv` for the workers it forks: its own, with the young generation's bound
 * and the old generation's first limit, each unless Node's options set it or its setting is 0.
 */
export function workerExecArgv(
  heap: WorkerHeap,
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string[] {
  const added = commandLineFlags(heap)
    .filter(([flag, mb]) => mb > 0 && flagValue(flag, execArgv, nodeOptions) === undefined)
    .map(([flag, mb]) => `${flag}=${mb}`);
  return [...execArgv, ...added];
}

const ARENAS_VARIABLE = 'MALLOC_ARENA_MAX';

/**
 * What the primary adds to the environment of the workers it forks: glibc's arena bound, read
 * when the process starts, unless the operator's environment sets it (or the setting is 0).
 * A C library other than glibc ignores it.
 */
export function workerEnv(heap: WorkerHeap, env: NodeJS.ProcessEnv): Record<string, string> {
  if (heap.mallocArenas === 0 || env[ARENAS_VARIABLE] !== undefined) return {};
  return { [ARENAS_VARIABLE]: String(heap.mallocArenas) };
}

/** What a worker's heap runs with, for its start-up line. */
export interface AppliedHeap {
  /** MiB, or null for Node's default. */
  semiSpaceMb: number | null;
  /** The old generation's limit until its first full collection, MiB, or null for V8's own. */
  initialOldSpaceMb: number | null;
  /** Percent, or null for V8's own heuristic. */
  growthPercent: number | null;
  /** glibc's malloc arenas at most, or null for the C library's own. */
  mallocArenas: number | null;
  /** Whether memory outside the heap counts against the heap's limit (WorkerHeap.externalMemoryInHeapLimit). */
  externalMemoryInHeapLimit: boolean;
}

/**
 * In a worker, before it serves: sets the old generation's growth and whether memory outside the
 * heap counts against its limit, each unless Node's options set it. They are V8 flags read when
 * V8 decides on a collection, so they are set here rather than on the command line, where a
 * Node.js without them would refuse to start. `execArgv` and `env`'s NODE_OPTIONS are the
 * process's own flags. Returns what the heap runs with.
 */
export function applyHeapGrowth(
  heap: WorkerHeap,
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): AppliedHeap {
  const nodeOptions = env.NODE_OPTIONS;
  const semiSpace = flagValue(SEMI_SPACE_FLAG, execArgv, nodeOptions);
  const initialOldSpace = flagValue(INITIAL_OLD_SPACE_FLAG, execArgv, nodeOptions);
  const growth = flagValue(GROWTH_FLAG, execArgv, nodeOptions);
  const externalMemory = externalMemoryFlag(execArgv);
  // 0 (or no number) is V8's own default for each flag.
  const applied = {
    semiSpaceMb: Number(semiSpace) || null,
    initialOldSpaceMb: Number(initialOldSpace) || null,
    growthPercent: Number(growth) || null,
    mallocArenas: Number(env[ARENAS_VARIABLE]) || null,
    externalMemoryInHeapLimit: externalMemory ?? heap.externalMemoryInHeapLimit,
  };
  if (growth === undefined && heap.growthPercent > 0) {
    setFlagsFromString(`${GROWTH_FLAG}=${heap.growthPercent}`);
    applied.growthPercent = heap.growthPercent;
  }
  if (externalMemory === undefined) {
    setFlagsFromString(heap.externalMemoryInHeapLimit ? EXTERNAL_MEMORY_FLAG : NO_EXTERNAL_MEMORY_FLAG);
  }
  return applied;
}

/**
 * Whether the worker's command line turns the external-memory flag on or off, its last mention
 * winning, or undefined when it does not mention it (Node.js refuses it in NODE_OPTIONS). V8 reads
 * a boolean flag's negation as `--no-flag` or `--noflag`, and underscores as dashes.
 */
function externalMemoryFlag(execArgv: readonly string[]): boolean | undefined {
  let set: boolean | undefined;
  for (const arg of execArgv) {
    const name = arg.replaceAll('_', '-');
    if (name === EXTERNAL_MEMORY_FLAG) set = true;
    else if (name === NO_EXTERNAL_MEMORY_FLAG || name === NO_EXTERNAL_MEMORY_FLAG_UNDASHED) set = false;
  }
  return set;
}
