/**
 * CPU time and resident memory of a process tree, from Linux's /proc (proc(5)): `stat` fields 14
 * and 15 (utime, stime, in clock ticks) and `status` VmRSS. A tree, because WORKERS > 1 runs the
 * gateway as a primary and its forked workers, and Postgres serves each connection from a child of
 * its postmaster. Also how busy whole cores were (`/proc/stat`), to see a saturated load side.
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

/** The parent of `pid` (stat(5) field 4), or null when it is gone. */
export function parentPid(pid: number): number | null {
  const fields = statFields(pid);
  return fields === null ? null : Number(fields[1]);
}

/** The command name of `pid` (`/proc/<pid>/comm`: `redis-server`, `postgres`), or null when it is gone. */
export function commandName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/** The value of one `Name:` line of `/proc/<path>/status`, or undefined (process gone, no such line). */
export function statusField(path: string, name: string): string | undefined {
  try {
    const line = readFileSync(`/proc/${path}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    return line?.slice(name.length + 1).trim();
  } catch {
    return undefined;
  }
}

/** The thread ids of `pid` (its main thread's is `pid`); empty when it is gone. */
export function threadIds(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
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

/**
 * User plus system CPU seconds consumed so far by these processes (gone ones count 0). With
 * `reaped`, also that of their children that exited and were waited for (fields 16 and 17): summed
 * over a whole tree, that total only grows, however many children (Postgres backends, autovacuum
 * workers, Redis's BGSAVE fork) come and go between two readings.
 */
export function cpuSeconds(pids: readonly number[], reaped = false): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (fields === null) continue;
    // stat(5) fields 14 and 15 (and 16, 17); `fields` starts at field 3 (state).
    ticks += Number(fields[11]) + Number(fields[12]);
    if (reaped) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks / clockTicks();
}

/** Busy and total clock ticks of these cores since boot, from their `cpuN` lines of /proc/stat. */
export function coreTicks(cores: readonly number[]): { busy: number; total: number } {
  const wanted = new Set(cores.map((core) => `cpu${core}`));
  let busy = 0;
  let total = 0;
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const [name, ...values] = line.split(' ');
    if (!wanted.has(name)) continue;
    // user nice system idle iowait irq softirq steal; guest time is already counted in user.
    const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number);
    const all = user + nice + system + idle + iowait + irq + softirq + steal;
    total += all;
    busy += all - idle - iowait;
  }
  return { busy, total };
}

/** Resident set size in bytes, summed over these processes. */
export function rssBytes(pids: readonly number[]): number {
  let kib = 0;
  for (const pid of pids) {
    // A process gone (or a kernel thread, without VmRSS) holds no memory.
    const value = statusField(String(pid), 'VmRSS');
    if (value !== undefined) kib += Number.parseInt(value, 10);
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
