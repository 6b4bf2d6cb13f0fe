import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import type { Config } from '../config.ts';
import { exitAfterFlush, type Logger } from '../telemetry/logger.ts';

/** A worker that dies within this long of its start is not restarted (it would crash-loop). */
const MIN_WORKER_LIFETIME_MS = 5_000;

/**
 * WORKERS > 1 (DESIGN.md section 3): the primary forks that many full replicas sharing the port.
 * Each worker is a replica like one on another machine: shared state lives in Postgres and Redis
 * (config validation demands both), so the primary only supervises.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  let stopping = false;
  const fork = () => {
    const worker = cluster.fork();
    const startedAt = Date.now();
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      logger.error({ pid: worker.process.pid, code, signal }, 'worker exited');
      if (Date.now() - startedAt > MIN_WORKER_LIFETIME_MS) fork();
    });
  };
  for (let i = 0; i < config.workers; i++) fork();
  logger.info({ workers: config.workers }, 'primary started workers');

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(workers.filter((w) => !w.isDead()).map((w) => stopWorker(w, signal)));
    exitAfterFlush(logger, 0);
  };
  process.once('SIGTERM', (s) => void stop(s));
  process.once('SIGINT', (s) => void stop(s));
}

async function stopWorker(worker: Worker, signal: NodeJS.Signals): Promise<void> {
  const exited = once(worker, 'exit');
  worker.process.kill(signal);
  await exited;
}
