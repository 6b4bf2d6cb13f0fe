import type { Logger } from '../diagnostics/logger.ts';
import type { Db } from '../store/database.ts';
import { claimCycle } from './job-lock.ts';

export interface PeriodicJobOptions {
  name: string;
  intervalMs: number;
  /** One run; its result is logged at debug level. Throwing is logged, and the next tick runs again. */
  run(): Promise<unknown>;
  logger: Logger;
  /** Run once right away on start (e.g. reconcile what a crashed process left behind). */
  runAtStart?: boolean;
  /**
   * Claim each timer cycle in Postgres before running (job-lock.ts, under the job's name and this
   * advisory lock id), so a fleet of replicas runs the job once per interval between them; a
   * replica whose claim finds the cycle run (or the lock held) skips it. The run at start and
   * runs asked for with `tick()` claim nothing.
   */
  claim?: { db: Db; lockId: bigint };
}

/**
 * A maintenance job on a timer (DESIGN.md section 8, src/jobs/): never two runs of one job at once
 * in this process, the timer unref'd so it never holds the process open, and `stop` waits for a
 * run in progress. Across replicas, `claim` runs it once per cycle; without it the job's own
 * statements must make concurrent runs safe (SKIP LOCKED, idempotent deletes).
 */
export class PeriodicJob {
  readonly #options: PeriodicJobOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: PeriodicJobOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => void this.#tick(true), this.#options.intervalMs).unref();
    // Each replica's own: a replica (re)started with new settings applies them at once.
    if (this.#options.runAtStart === true) void this.#tick(false);
  }

  /**
   * Runs now unless a run is in progress (then waits for that one). Asked for (a test, an
   * operator's script), it runs whether or not another replica ran this cycle.
   */
  tick(): Promise<void> {
    return this.#tick(false);
  }

  /** `scheduled`: the timer's run, which claims its cycle when the job has `claim`. */
  #tick(scheduled: boolean): Promise<void> {
    if (this.#running === undefined && !this.#stopped) {
      this.#running = this.#runOnce(scheduled).finally(() => {
        this.#running = undefined;
      });
    }
    return this.#running ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** The run, unless it is scheduled and another replica has this cycle. */
  async #claimedRun(scheduled: boolean): Promise<unknown> {
    const { claim, name, intervalMs } = this.#options;
    if (scheduled && claim !== undefined) {
      const claimed = await claim.db
        .transaction()
        .execute((tx) => claimCycle(tx, name, claim.lockId, intervalMs));
      if (!claimed.claimed) return { ran: false, reason: claimed.reason };
    }
    return this.#options.run();
  }

  async #runOnce(scheduled: boolean): Promise<void> {
    const { name, logger } = this.#options;
    try {
      const result = await this.#claimedRun(scheduled);
      logger.debug({ job: name, result }, 'maintenance job ran');
    } catch (error) {
      logger.warn({ job: name, err: error }, 'maintenance job failed; retrying next interval');
    }
  }
}
