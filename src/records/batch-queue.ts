import { isDatabaseUnavailable, withTimeout } from '../store/database.ts';
import type { Logger } from '../telemetry/logger.ts';

export interface BatchQueueOptions<T> {
  /** Names the queue in log lines. */
  name: string;
  /** Items held at most; a push beyond it is dropped and counted (the hot path never waits). */
  capacity: number;
  /** Items written per multi-row INSERT. */
  batchSize: number;
  /** Period of the background flush. */
  flushIntervalMs: number;
  /** Period of the one summary line about dropped items (never one line per item). */
  dropReportIntervalMs: number;
  /** Bound on one write, so a database that hangs cannot hold the queue (counts as unavailable). */
  writeTimeoutMs: number;
  /**
   * Items with the same key coalesce: a push whose key is queued replaces that item in place (same
   * position, no capacity used), so only the newest state of a thing is written. Without it every
   * push is its own item.
   */
  keyOf?: (item: T) => string;
  /** Writes one batch; throws when it cannot. */
  write(items: readonly T[]): Promise<void>;
  logger: Logger;
}

/**
 * A bounded in-process queue written in batches (DESIGN.md section 4: "records and spend go through
 * bounded in-process queues, flushed in batches, and on shutdown"). `push` never blocks and never
 * throws. While the database is down the queue keeps what fits and retries on the next tick; a batch
 * the database refuses for its content is retried row by row so one bad row cannot wedge the queue.
 * Items live in a Map in push order, so a keyed push can replace a queued item in place; an item
 * replaced while its batch was being written stays queued and goes out with the next batch.
 */
export class BatchQueue<T> {
  readonly #options: BatchQueueOptions<T>;
  readonly #items = new Map<unknown, T>();
  /** The key of an unkeyed push. */
  #sequence = 0;
  #dropped = 0;
  #lastOutage: unknown;
  #running: Promise<void> | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  #reportTimer: NodeJS.Timeout | undefined;
  #scheduled = false;

  constructor(options: BatchQueueOptions<T>) {
    this.#options = options;
  }

  get size(): number {
    return this.#items.size;
  }

  start(): void {
    this.#flushTimer ??= setInterval(() => void this.#drain(), this.#options.flushIntervalMs).unref();
    this.#reportTimer ??= setInterval(() => this.#reportDrops(), this.#options.dropReportIntervalMs).unref();
  }

  push(item: T): void {
    const key = this.#options.keyOf === undefined ? this.#sequence++ : this.#options.keyOf(item);
    if (this.#items.has(key)) {
      this.#items.set(key, item);
      return;
    }
    if (this.#items.size >= this.#options.capacity) {
      this.#dropped += 1;
      return;
    }
    this.#items.set(key, item);
    if (this.#items.size >= this.#options.batchSize && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        void this.#drain();
      });
    }
  }

  /** Counts a record lost before it reached the queue (it could not be built); reported with the drops. */
  discard(): void {
    this.#dropped += 1;
  }

  /**
   * Writes everything queued, retrying a database outage until `deadlineMs` from now; what is
   * still queued then is reported as lost. Used on shutdown (lifecycle phase `flush`).
   */
  async flush(deadlineMs: number, retryDelayMs = 200): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      await this.#drain();
      if (this.#items.size === 0 || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    }
    if (this.#items.size > 0) {
      this.#dropped += this.#items.size;
      this.#items.clear();
    }
    this.#reportDrops();
  }

  /** Stops the timers and flushes (see `flush`). */
  async stop(deadlineMs: number): Promise<void> {
    clearInterval(this.#flushTimer);
    clearInterval(this.#reportTimer);
    this.#flushTimer = undefined;
    this.#reportTimer = undefined;
    await this.flush(deadlineMs);
  }

  /** One drain at a time; a caller arriving mid-drain waits for it and then drains again. */
  async #drain(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
    if (this.#items.size === 0) return;
    this.#running = this.#writeAll().finally(() => {
      this.#running = undefined;
    });
    await this.#running;
  }

  async #writeAll(): Promise<void> {
    while (this.#items.size > 0) {
      const { keys, batch } = this.#nextBatch();
      try {
        await this.#write(batch);
      } catch (error) {
        // Unavailable: keep the batch, the next tick retries. Otherwise a row's content is at fault.
        if (isDatabaseUnavailable(error)) return this.#unavailable(error);
        const outcome = await this.#writeOneByOne(batch, error);
        if (outcome !== null) return this.#unavailable(outcome);
      }
      this.#settle(keys, batch);
    }
  }

  /** The oldest `batchSize` items, in push order. */
  #nextBatch(): { keys: unknown[]; batch: T[] } {
    const size = Math.min(this.#items.size, this.#options.batchSize);
    const keys = new Array<unknown>(size);
    const batch = new Array<T>(size);
    let index = 0;
    for (const [key, item] of this.#items) {
      if (index === size) break;
      keys[index] = key;
      batch[index] = item;
      index += 1;
    }
    return { keys, batch };
  }

  /** Removes the items of a written batch, except those replaced by a newer state meanwhile. */
  #settle(keys: readonly unknown[], batch: readonly T[]): void {
    for (let index = 0; index < keys.length; index += 1) {
      if (this.#items.get(keys[index]) === batch[index]) this.#items.delete(keys[index]);
    }
  }

  #write(items: readonly T[]): Promise<void> {
    const write = this.#options.write(items);
    // A write that loses the race to the timeout may still fail later: that failure is already
    // handled (as the timeout), so it must not surface as an unhandled rejection.
    write.catch(() => {});
    return withTimeout(write, this.#options.writeTimeoutMs, 'record write');
  }

  /** Writes each item alone, dropping the ones refused; returns the outage error if the database went away. */
  async #writeOneByOne(batch: readonly T[], batchError: unknown): Promise<unknown> {
    let rejected = 0;
    for (const item of batch) {
      try {
        await this.#write([item]);
      } catch (error) {
        if (isDatabaseUnavailable(error)) return error;
        rejected += 1;
      }
    }
    if (rejected > 0) {
      this.#options.logger.error(
        { queue: this.#options.name, rejected, err: batchError },
        'records refused by the database were dropped',
      );
    }
    return null;
  }

  #unavailable(error: unknown): void {
    this.#lastOutage = error;
  }

  #reportDrops(): void {
    if (this.#dropped === 0 && this.#lastOutage === undefined) return;
    this.#options.logger.warn(
      {
        queue: this.#options.name,
        dropped: this.#dropped,
        queued: this.#items.size,
        capacity: this.#options.capacity,
        databaseError: this.#lastOutage === undefined ? undefined : String(this.#lastOutage),
      },
      this.#dropped > 0
        ? 'records dropped: queue full or database unavailable'
        : 'record writes waiting for the database',
    );
    this.#dropped = 0;
    this.#lastOutage = undefined;
  }
}
