/**
 * CPU time and resident memory of a process tree, from Linux's /proc (proc(5)): `stat` fields 14
 * and 15 (utime, stime, in clock ticks) and `status` VmRSS. A tree, because WORKERS > 1 runs the
 * gateway as a primary and its forked workers.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Fields after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** `pid` and every live descendant. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const child = Number(entry);
    if (!Number.isInteger(child)) continue;
    const fields = statFields(child);
    if (fields === null) continue;
    const parent = Number(fields[1]);
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [child]);
    else list.push(child);
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** User plus system CPU seconds consumed so far by these processes (gone ones count 0). */
export function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    // stat(5) fields 14 and 15; `fields` starts at field 3 (state).
    if (fields !== null) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / clockTicks();
}

/** Resident set size in bytes, summed over these processes. */
export function rssBytes(pids: readonly number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const line = status.split('\n').find((l) => l.startsWith('VmRSS:'));
      if (line !== undefined) kib += Number.parseInt(line.slice('VmRSS:'.length).trim(), 10);
    } catch {
      // The process is gone: it holds no memory.
    }
  }
  return kib * 1024;
}

/**
 * Samples RSS every `intervalMs` until stopped; the median is the steady figure, the max the peak.
 */
export function sampleRss(
  pids: readonly number[],
  intervalMs = 250,
): () => { medianMb: number; maxMb: number } {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssBytes(pids)), intervalMs);
  return () => {
    clearInterval(timer);
    if (samples.length === 0) samples.push(rssBytes(pids));
    const sorted = samples.toSorted((x, y) => x - y);
    const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;
    return { medianMb: mb(sorted[Math.floor(sorted.length / 2)]), maxMb: mb(sorted[sorted.length - 1]) };
  };
}
