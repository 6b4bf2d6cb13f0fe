/**
 * Deletes expired response state (SPEC.md, Response state): a job every
 * RESPONSE_STATE_GC_INTERVAL_MS, and between its runs a bounded prune on write traffic. Both claim
 * rows with `FOR UPDATE SKIP LOCKED` and delete them in the same statement, so replicas running
 * them together split the work, and a repeated delete finds nothing.
 */

import type { Logger } from '../diagnostics/logger.ts';
import { JOB_LOCK_IDS } from '../jobs/job-lock.ts';
import { PeriodicJob } from '../jobs/periodic-job.ts';
import { type Expiry, expire, expireBatch } from '../jobs/retention-job.ts';
import type { Db } from '../store/database.ts';

/** Rows one prune deletes at most: a write pays for a small, indexed delete, never a backlog. */
export const PRUNE_BATCH_ROWS = 100;
/** A process prunes at most this often, however many writes it serves. */
export const PRUNE_MIN_INTERVAL_MS = 1_000;

export interface ResponseStateGcOptions {
  /** Background statements: the deletes never run on the request path's pool bound. */
  db: Db;
  expiry: Expiry;
  intervalMs: number;
  logger: Logger;
}

export class ResponseStateGc {
  readonly #options: ResponseStateGcOptions;
  readonly #job: PeriodicJob;
  #lastPruneAtMs = Number.NEGATIVE_INFINITY;
  #pruning = false;

  constructor(options: ResponseStateGcOptions) {
    this.#options = options;
    this.#job = new PeriodicJob({
      name: 'response-state-gc',
      intervalMs: options.intervalMs,
      runAtStart: true,
      logger: options.logger,
      claim: { db: options.db, lockId: JOB_LOCK_IDS.responseStateGc },
      run: () => expire(options.db, options.expiry),
    });
  }

  start(): void {
    this.#job.start();
  }

  stop(): Promise<void> {
    return this.#job.stop();
  }

  /** Runs the job now (or waits for the run in progress). */
  run(): Promise<void> {
    return this.#job.tick();
  }

  /** After a write: one bounded batch, unless one ran within PRUNE_MIN_INTERVAL_MS. Never awaited. */
  pruneSoon(): void {
    const now = Date.now();
    if (this.#pruning || now - this.#lastPruneAtMs < PRUNE_MIN_INTERVAL_MS) return;
    this.#pruning = true;
    this.#lastPruneAtMs = now;
    expireBatch(this.#options.db, this.#options.expiry, PRUNE_BATCH_ROWS)
      .catch((error: unknown) =>
        this.#options.logger.debug(
          { err: error instanceof Error ? error.message : String(error) },
          'response state prune failed',
        ),
      )
      .finally(() => {
        this.#pruning = false;
      });
  }
}
