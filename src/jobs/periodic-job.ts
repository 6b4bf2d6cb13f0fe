import type { Logger } from '../diagnostics/logger.ts';

export interface PeriodicJobOptions {
  name: string;
  intervalMs: number;
  /** One run; its result is logged at debug level. Throwing is logged, and the next tick runs again. */
  run(): Promise<unknown>;
  logger: Logger;
  /** Run once right away on start (e.g. reconcile what a crashed process left behind). */
  runAtStart?: boolean;
}

/**
 * A maintenance job on a timer (DESIGN.md section 8, src/jobs/): never two runs of one job at once
 * in this process, the timer unref'd so it never holds the process open, and `stop` waits for a
 * run in progress. Coordination across replicas is the job's own (advisory lock or SKIP LOCKED).
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
    this.#timer = setInterval(() => void this.tick(), this.#options.intervalMs).unref();
    if (this.#options.runAtStart === true) void this.tick();
  }

  /** Runs now unless a run is in progress (then waits for that one). */
  tick(): Promise<void> {
    if (this.#running === undefined && !this.#stopped) {
      this.#running = this.#runOnce().finally(() => {
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

  async #runOnce(): Promise<void> {
    const { name, logger } = this.#options;
    try {
      const result = await this.#options.run();
      logger.debug({ job: name, result }, 'maintenance job ran');
    } catch (error) {
      logger.warn({ job: name, err: error }, 'maintenance job failed; retrying next interval');
    }
  }
}
