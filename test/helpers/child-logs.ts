import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { waitUntil } from './eventually.ts';

/** One JSON log line of a gateway process. */
export type LogLine = Record<string, unknown> & { pid: number; msg: string };

/** Output of a child process: the `output()` of child.ts. */
interface HasOutput {
  output(): string;
}

/** Every JSON log line the child (a primary and its workers) wrote so far, in order. */
export function logLines(child: HasOutput): LogLine[] {
  const lines: LogLine[] = [];
  for (const text of child.output().split('\n')) {
    if (!text.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      // A line of another process can interleave with a long batch on the shared pipe; skip it.
    }
  }
  return lines;
}

/** Waits for a log line matching `match` and returns it; fails naming `what` with the output. */
export async function waitForLog(
  child: HasOutput,
  match: (line: LogLine) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<LogLine> {
  let found: LogLine | undefined;
  await waitUntil(
    async () => {
      found = logLines(child).find(match);
      return found !== undefined;
    },
    `${what}\n${child.output()}`,
    timeoutMs,
  );
  return found as LogLine;
}

/** The "switchyard listening" line of a worker other than those in `before` (a restarted one). */
export function waitForWorker(child: HasOutput, before: readonly number[] = []): Promise<LogLine> {
  return waitForLog(
    child,
    (line) => line.msg === 'switchyard listening' && !before.includes(line.pid),
    'a worker listening',
  );
}

/** The gateway's base URL from a "switchyard listening" line. */
export function urlOf(listening: LogLine): string {
  const address = String(listening.address);
  return `http://127.0.0.1:${address.slice(address.lastIndexOf(':') + 1)}`;
}

/** How a start ended: the exit status of a gateway that refused to start, or 'listening'. */
export function startOutcome(child: ChildProcess & HasOutput): Promise<number | null | 'listening'> {
  return Promise.race([
    once(child, 'exit').then(([code]) => code as number | null),
    waitForWorker(child).then(() => 'listening' as const),
  ]);
}

/** True while a process with this pid exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
