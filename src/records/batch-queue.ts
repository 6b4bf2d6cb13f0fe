import type { Logger } from '../diagnostics/logger.ts';
import { DependencyTimeoutError, isDatabaseUnavailable, withTimeout } from '../store/database.ts';

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
  /**
   * The earliest time (epoch ms) an item may be written: a background write leaves it queued, in
   * its place, until then; the shutdown flush writes it anyway. Without it every item is due at
   * once. Variant B holds a call's start row back so that the final row can replace it first.
   * Once the queue is started, a held item is written at its due time (at most a quarter interval
   * after the last background write began), not at the first tick after it.
   */
  dueAt?: (item: T) => number;
  /** The clock `dueAt` is read against; `Date.now` unless a test sets it. */
  now?: () => number;
  /** Writes one batch; throws when it cannot. */
  write(items: readonly T[]): Promise<void>;
  /**
   * Told of an item no write will read again, so what it holds may be reused: written (or refused
   * by the database) and removed, or refused at `push` for want of room. Not told of an item
   * replaced in place, which a write in flight may still read, nor of what a shutdown gives up.
   */
  release?: (item: T) => void;
  logger: Logger;
}

/**
 * A bounded in-process queue written in batches (DESIGN.md section 4: "records and spend go through
 * bounded in-process queues, flushed in batches, and on shutdown"). `push` never blocks and never
 * throws. While the database is down the queue keeps what fits and retries on the next tick; a batch
 * the database refuses for its content is retried row by row so one bad row cannot wedge the queue.
 * Items live in a Map in push order, so a keyed push can replace a queued item in place; an item
 * replaced while its batch was being written stays queued and goes out with the next batch.
 *
 * A background write (the timer, or `batchSize` new items) takes what is queued and due when it
 * begins. What arrives during its writes waits for the next one: a write that also took those
 * would run back to back with the next, in batches of a few rows, each catching the start rows of
 * the calls then in flight, so many operations would be written twice (docs/decisions/hot-path.md).
 */
export class BatchQueue<T> {
  readonly #options: BatchQueueOptions<T>;
  readonly #items = new Map<unknown, T>();
  /** The key of an unkeyed push. */
  #sequence = 0;
  #dropped = 0;
  #lastOutage: unknown;
  /** The last record that could not be built since the last report: its call and why. */
  #lastDiscard: { requestId: string; reason: string } | undefined;
  #running: Promise<unknown> | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  #reportTimer: NodeJS.Timeout | undefined;
  /** New items since the last background write began; `batchSize` of them ask for the next one. */
  #fresh = 0;
  /** A background write is asked for and has not begun yet. */
  #asked = false;
  /** The one-shot write armed for the earliest held item's due time (`#dueTimerAt`). */
  #dueTimer: NodeJS.Timeout | undefined;
  #dueTimerAt = Number.POSITIVE_INFINITY;
  /** When the last background write began (the queue's clock). */
  #lastDrainAt = 0;
  readonly #now: () => number;

  constructor(options: BatchQueueOptions<T>) {
    this.#options = options;
    this.#now = options.now ?? (() => Date.now());
  }

  get size(): number {
    return this.#items.size;
  }

  start(): void {
    this.#flushTimer ??= setInterval(() => void this.writeDue(), this.#options.flushIntervalMs).unref();
    this.#reportTimer ??= setInterval(() => this.#reportDrops(), this.#options.dropReportIntervalMs).unref();
  }

  push(item: T): void {
    const key = this.#options.keyOf === undefined ? this.#sequence++ : this.#options.keyOf(item);
    if (this.#options.dueAt !== undefined) this.#armDue(this.#options.dueAt(item));
    if (this.#items.has(key)) {
      this.#items.set(key, item);
      return;
    }
    if (this.#items.size >= this.#options.capacity) {
      this.#dropped += 1;
      this.#options.release?.(item);
      return;
    }
    this.#items.set(key, item);
    this.#fresh += 1;
    if (this.#fresh >= this.#options.batchSize && !this.#asked) {
      this.#asked = true;
      setImmediate(() => void this.writeDue());
    }
  }

  /** What the timer does: writes the items queued and due now, in batches. */
  async writeDue(): Promise<void> {
    await this.#drain(false);
  }

  /**
   * Counts a record lost before it reached the queue (it could not be built); reported with the
   * drops, with the last such call's request id and the error's message, so a defect that drops
   * every record says what it is in one line per report period, not one per call.
   */
  discard(requestId: string, error: unknown): void {
    this.#dropped += 1;
    this.#lastDiscard = { requestId, reason: error instanceof Error ? error.message : String(error) };
  }

  /**
   * Writes everything queued, retrying a database outage until `deadlineMs` from now; what is
   * still queued then is reported as lost. Used on shutdown (lifecycle phase `flush`).
   */
  async flush(deadlineMs: number, retryDelayMs = 200): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      // Items pushed or replaced during a drain go out with the next one at once; only an outage waits.
      const reached = await this.#drain(true);
      if (this.#items.size === 0) break;
      if (reached) continue;
      if (Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    }
    if (this.#items.size > 0) {
      this.#dropped += this.#items.size;
      this.#items.clear();
    }
    this.#reportDrops();
  }

  /**
   * Stops the timers and flushes (see `flush`), returning by `deadlineMs` even while a write is
   * still waiting on the database: what is queued then is reported lost (a write still in flight
   * may yet land; it cannot be confirmed).
   */
  async stop(deadlineMs: number): Promise<void> {
    clearInterval(this.#flushTimer);
    clearInterval(this.#reportTimer);
    clearTimeout(this.#dueTimer);
    this.#flushTimer = undefined;
    this.#reportTimer = undefined;
    this.#dueTimer = undefined;
    try {
      await withTimeout(this.flush(deadlineMs), deadlineMs, 'record flush');
    } catch (error) {
      if (!(error instanceof DependencyTimeoutError)) throw error;
      this.#lastOutage = error;
      this.#dropped += this.#items.size;
      this.#items.clear();
      this.#reportDrops();
    }
  }

  /**
   * One drain at a time; a caller arriving mid-drain waits for it and then drains again. `all`
   * ignores `dueAt` (the shutdown flush). Resolves false when the database was unavailable.
   */
  async #drain(all: boolean): Promise<boolean> {
    while (this.#running !== undefined) await this.#running;
    const keys = this.#takeKeys(all);
    if (keys.length === 0) return true;
    this.#lastDrainAt = this.#now();
    const run = this.#writeAll(keys);
    this.#running = run.finally(() => {
      this.#running = undefined;
    });
    return run;
  }

  /**
   * Arms a write for a held item's due time when none is armed sooner (items held in push order
   * come due in that order, so a push costs one comparison): variant B's start row of a call in
   * flight must reach the database about one interval after the call began, not up to two, or a
   * SIGKILL in between leaves no record of it (issue 30 finding 10). Such writes begin at least a
   * quarter interval after the last one, so calls in flight never turn the queue into a stream
   * of tiny batches. Only while the queue runs (started, not stopped).
   */
  #armDue(dueAtMs: number): void {
    if (this.#flushTimer === undefined || dueAtMs <= this.#now() || dueAtMs >= this.#dueTimerAt) return;
    clearTimeout(this.#dueTimer);
    this.#dueTimerAt = dueAtMs;
    const at = Math.max(dueAtMs, this.#lastDrainAt + this.#options.flushIntervalMs / 4);
    this.#dueTimer = setTimeout(() => this.#writeHeld(), at - this.#now()).unref();
  }

  /** The armed write: what is due now, then a write armed for the next held item. */
  #writeHeld(): void {
    this.#dueTimer = undefined;
    this.#dueTimerAt = Number.POSITIVE_INFINITY;
    void this.writeDue().finally(() => {
      const { dueAt } = this.#options;
      if (dueAt === undefined) return;
      const now = this.#now();
      let next = Number.POSITIVE_INFINITY;
      for (const item of this.#items.values()) {
        const due = dueAt(item);
        if (due > now && due < next) next = due;
      }
      if (next !== Number.POSITIVE_INFINITY) this.#armDue(next);
    });
  }

  /** The keys of the items queued now, in push order: all of them, or the due ones. */
  #takeKeys(all: boolean): unknown[] {
    this.#fresh = 0;
    this.#asked = false;
    const { dueAt } = this.#options;
    if (all || dueAt === undefined) return [...this.#items.keys()];
    const now = this.#now();
    const keys: unknown[] = [];
    for (const [key, item] of this.#items) if (dueAt(item) <= now) keys.push(key);
    return keys;
  }

  async #writeAll(keys: readonly unknown[]): Promise<boolean> {
    for (let start = 0; start < keys.length; start += this.#options.batchSize) {
      const batchKeys = keys.slice(start, start + this.#options.batchSize);
      // The newest state of each item: a keyed push may have replaced it since the keys were taken.
      const batch = batchKeys.map((key) => this.#items.get(key) as T);
      try {
        await this.#write(batch);
      } catch (error) {
        // Unavailable: keep the batch, the next tick retries. Otherwise a row's content is at fault.
        if (isDatabaseUnavailable(error)) return this.#unavailable(error);
        const outcome = await this.#writeOneByOne(batch, error);
        if (outcome !== null) return this.#unavailable(outcome);
      }
      this.#settle(batchKeys, batch);
    }
    return true;
  }

  /** Removes the items of a written batch, except those replaced by a newer state meanwhile. */
  #settle(keys: readonly unknown[], batch: readonly T[]): void {
    for (let index = 0; index < keys.length; index += 1) {
      if (this.#items.get(keys[index]) !== batch[index]) continue;
      this.#items.delete(keys[index]);
      this.#options.release?.(batch[index]);
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

  #unavailable(error: unknown): false {
    this.#lastOutage = error;
    return false;
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
        notBuilt: this.#lastDiscard,
      },
      this.#dropped > 0
        ? 'records dropped: queue full, database unavailable, or a record that could not be built'
        : 'record writes waiting for the database',
    );
    this.#dropped = 0;
    this.#lastOutage = undefined;
    this.#lastDiscard = undefined;
  }
}
