/**
 * CPU pinning with `taskset` (util-linux): the server under test on the first cores, the load
 * generator, the fake upstream and the harness on the rest, so that they do not steal the
 * server's CPU. Where that is impossible (no taskset, too few cores) nothing is pinned and the
 * report says so: unpinned figures are noisier, not wrong.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface CorePlan {
  applied: boolean;
  /** Why pinning was or was not applied, for the report. */
  note: string;
  /** `taskset -c` lists, or null when not pinned. */
  serverCores: string | null;
  loadCores: string | null;
}

let tasksetPresent: boolean | undefined;

export function hasTaskset(): boolean {
  tasksetPresent ??= spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
  return tasksetPresent;
}

function range(from: number, to: number): string {
  return from === to ? String(from) : `${from}-${to}`;
}

/** Read once at start, before the harness pins itself (affinity narrows availableParallelism). */
const CORES = availableParallelism();

/**
 * Plans `serverCoreCount` cores for the server and every other core for the rest. An unpinned plan
 * still names every core: children inherit the harness's own (pinned) affinity otherwise.
 */
export function planCores(serverCoreCount: number): CorePlan {
  const cores = CORES;
  if (!hasTaskset()) {
    return { applied: false, note: 'not pinned: taskset not found', serverCores: null, loadCores: null };
  }
  if (cores <= serverCoreCount) {
    const all = range(0, cores - 1);
    return {
      applied: false,
      note: `not pinned: ${cores} cores, none left for the load generator beside ${serverCoreCount} server core(s)`,
      serverCores: all,
      loadCores: all,
    };
  }
  const serverCores = range(0, serverCoreCount - 1);
  const loadCores = range(serverCoreCount, cores - 1);
  return {
    applied: true,
    note: `server on core(s) ${serverCores}; load generator, fake upstream and harness on ${loadCores}`,
    serverCores,
    loadCores,
  };
}

/** The cores of a `taskset -c` list such as `1-3,6`. */
export function coresOf(list: string): number[] {
  const cores: number[] = [];
  for (const part of list.split(',')) {
    const [from, to = from] = part.split('-').map(Number);
    for (let core = from; core <= to; core++) cores.push(core);
  }
  return cores;
}

/** How many cores a `taskset -c` list names. */
export function coreCount(list: string): number {
  return coresOf(list).length;
}

/** The command prefix that pins a child to `cores` (empty when not pinning). */
export function pinPrefix(cores: string | null): string[] {
  return cores === null ? [] : ['taskset', '-c', cores];
}

/**
 * Sets the affinity of `pid` (of its every thread with `allThreads`) to `cores`. Returns null when
 * done, else why not (taskset's message: not permitted, no such process).
 */
export function setAffinity(pid: number, cores: string, allThreads = false): string | null {
  const args = [...(allThreads ? ['-a'] : []), '-p', '-c', cores, String(pid)];
  const result = spawnSync('taskset', args, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status === 0) return null;
  return result.error?.message ?? (result.stderr.trim() || `taskset exited ${result.status}`);
}

/** Pins this process (every thread) to `cores`; returns false when taskset refused. */
export function pinSelf(cores: string | null): boolean {
  return cores !== null && setAffinity(process.pid, cores, true) === null;
}
