import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import type { Config } from '../config.ts';
import { exitAfterFlush, type Logger } from '../diagnostics/logger.ts';
import { guardServingProcess } from './fatal-errors.ts';
import { RestartBackoff } from './restart-backoff.ts';
import { workerEnv, workerExecArgv } from './worker-heap.ts';

/** Grace a worker gets beyond SHUTDOWN_TIMEOUT_MS to stop before the primary SIGKILLs it. */
const STOP_GRACE_MS = 5_000;

/** What a worker sends its primary once the gateway accepts connections. */
const LISTENING_MESSAGE = 'switchyard:listening';

/**
 * Every `serve` runs as a primary that supervises `WORKERS` worker processes (DESIGN.md section
 * 3), one by default. A worker is a full gateway; the primary loads none of the gateway's modules,
 * so it stays small, and only forks, restarts and stops workers:
 * - a worker that fails before it ever listened fails the start (its one-line reason is printed
 *   already): the primary stops the others and exits with that worker's status;
 * - a worker that dies after it served is restarted, with exponential backoff while it keeps dying;
 * - SIGTERM or SIGINT is passed to every worker, which drains; one that is still running
 *   SHUTDOWN_TIMEOUT_MS (plus a grace) later is killed.
 * WORKERS above 1 needs Postgres and Redis (config.ts): an embedded PGlite belongs to one process.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  // One worker takes its connections itself; round-robin would pass each through the primary.
  if (config.workers === 1) cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({
    execArgv: workerExecArgv(config.workerHeap, process.execArgv, process.env.NODE_OPTIONS),
  });
  const supervisor = new Supervisor(config, logger);
  guardServingProcess(logger).drainBeforeExit(
    () => supervisor.stop('SIGTERM').then(() => {}),
    config.shutdownTimeoutMs + STOP_GRACE_MS,
  );
  const stop = (signal: NodeJS.Signals) => {
    void supervisor.stop(signal).then((code) => exitAfterFlush(logger, code));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  supervisor.start();
}

/** In a worker: tells the primary that the gateway listens, so a later death is a crash, not a failed start. */
export function reportListening(): void {
  if (cluster.isWorker) process.send?.(LISTENING_MESSAGE);
}

class Supervisor {
  readonly #config: Config;
  readonly #logger: Logger;
  /** Set by the first SIGTERM or SIGINT; repeats (a terminal's Ctrl-C reaches every process) are ignored. */
  #stopping: Promise<number> | undefined;
  readonly #pendingRestarts = new Set<NodeJS.Timeout>();
  #listening = 0;

  constructor(config: Config, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
  }

  start(): void {
    for (let slot = 0; slot < this.#config.workers; slot++) this.#fork(new RestartBackoff(), false);
  }

  /** Stops every worker; resolves with the exit status for the primary (0 when all stopped cleanly). */
  stop(signal: NodeJS.Signals): Promise<number> {
    this.#stopping ??= this.#stopAll(signal);
    return this.#stopping;
  }

  /** `served`: this slot's worker listened before, so a worker that dies early is a crash to back off from. */
  #fork(backoff: RestartBackoff, served: boolean): void {
    const worker = cluster.fork(workerEnv(this.#config.workerHeap, process.env));
    let listenedAt: number | undefined;
    worker.on('message', (message: unknown) => {
      if (message !== LISTENING_MESSAGE || listenedAt !== undefined) return;
      listenedAt = Date.now();
      if (!served && ++this.#listening === this.#config.workers) {
        this.#logger.info({ workers: this.#config.workers }, 'primary supervising workers');
      }
    });
    worker.once('exit', (code, signal) => {
      if (this.#stopping !== undefined) return;
      if (listenedAt === undefined && !served) {
        this.#failStart(worker, code);
        return;
      }
      this.#restart(worker, backoff, { code, signal, listenedAt });
    });
  }

  #restart(
    worker: Worker,
    backoff: RestartBackoff,
    died: { code: number | null; signal: string | null; listenedAt: number | undefined },
  ): void {
    const delayMs = backoff.next(died.listenedAt);
    this.#logger.error(
      {
        workerPid: worker.process.pid,
        code: died.code,
        signal: died.signal,
        crashes: backoff.crashes,
        restartInMs: delayMs,
      },
      died.listenedAt === undefined
        ? 'restarted worker died before it listened; restarting it again'
        : 'worker died; restarting it',
    );
    const timer = setTimeout(() => {
      this.#pendingRestarts.delete(timer);
      this.#fork(backoff, true);
    }, delayMs);
    this.#pendingRestarts.add(timer);
  }

  /** A worker that never listened printed why; the others are stopped and the primary exits like it. */
  #failStart(worker: Worker, code: number | null): void {
    const status = code === null || code === 0 ? 1 : code;
    void this.stop('SIGTERM').then(() => {
      this.#logger.debug({ workerPid: worker.process.pid, code }, 'worker failed to start');
      exitAfterFlush(this.#logger, status);
    });
  }

  async #stopAll(signal: NodeJS.Signals): Promise<number> {
    for (const timer of this.#pendingRestarts) clearTimeout(timer);
    this.#pendingRestarts.clear();
    const workers = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && !w.isDead(),
    );
    const clean = await Promise.all(workers.map((w) => this.#stopWorker(w, signal)));
    return clean.every(Boolean) ? 0 : 1;
  }

  /** True when the worker exited 0, or by `signal` itself (one still starting has no handler for it yet). */
  async #stopWorker(worker: Worker, signal: NodeJS.Signals): Promise<boolean> {
    const exited = once(worker, 'exit') as Promise<[number | null, string | null]>;
    worker.process.kill(signal);
    const boundMs = this.#config.shutdownTimeoutMs + STOP_GRACE_MS;
    const killer = setTimeout(() => {
      this.#logger.error(
        { workerPid: worker.process.pid, timeoutMs: boundMs },
        'worker did not stop within SHUTDOWN_TIMEOUT_MS; killing it',
      );
      worker.process.kill('SIGKILL');
    }, boundMs);
    const [code, exitSignal] = await exited;
    clearTimeout(killer);
    return code === 0 || exitSignal === signal;
  }
}
