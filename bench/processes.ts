/**
 * The harness's child processes: each runs pinned (when the plan says so), with its output in a
 * log file under the run's directory, and stops on SIGTERM (SIGKILL after a grace period).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { pinPrefix } from './pinning.ts';

/** How long a child gets to exit after SIGTERM before it is killed. */
const STOP_GRACE_MS = 30_000;

export interface ChildOptions {
  /** Arguments after `node` (execArgv included). */
  args: string[];
  env: Record<string, string>;
  cores: string | null;
  /** stdout and stderr go here; null keeps stdout piped (for a ready line or a JSON result). */
  logFile: string | null;
  /** A program that runs node (`valgrind --tool=callgrind ...`); its own flags included. */
  wrapper?: readonly string[];
}

export interface BenchChild {
  readonly child: ChildProcess;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The children still running: a signal to the harness alone (`kill <pid>`) does not reach them. */
const running = new Set<ChildProcess>();

/** Kills every child still running (the harness is stopping); synchronous, for `exit` handlers. */
export function killRunningChildren(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Starts `node <args>`; with `taskset -c` the node process replaces taskset, so the pid is node's. */
export function startChild(options: ChildOptions): BenchChild {
  const [command, ...prefix] = [...pinPrefix(options.cores), ...(options.wrapper ?? []), process.execPath];
  const log = options.logFile === null ? null : openSync(options.logFile, 'a');
  const child = spawn(command, [...prefix, ...options.args], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', log ?? 'pipe', log ?? 'inherit'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${options.args.join(' ')}`);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return { child, pid: child.pid, stop: () => stopChild(child) };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** Reads the child's stdout until a JSON line satisfies `accept`; fails if the child exits first. */
export async function readJsonLine<T>(
  child: ChildProcess,
  accept: (value: Record<string, unknown>) => boolean,
  timeoutMs: number,
): Promise<T> {
  const stdout = child.stdout;
  if (stdout === null) throw new Error('child stdout is not piped');
  return new Promise<T>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (!line.startsWith('{')) continue;
        const value = JSON.parse(line) as Record<string, unknown>;
        if (accept(value)) return finish(null, value as T);
      }
    };
    const onExit = (code: number | null) => finish(new Error(`child exited (${code}) before answering`));
    function finish(error: Error | null, value?: T) {
      clearTimeout(timer);
      stdout?.off('data', onData);
      child.off('exit', onExit);
      if (error === null) resolve(value as T);
      else reject(error);
    }
    stdout.on('data', onData);
    child.once('exit', onExit);
  });
}
