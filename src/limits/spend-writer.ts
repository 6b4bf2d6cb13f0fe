import { DIAGNOSTICS } from '../telemetry/diagnostics-channels.ts';
import { exactCents } from './exact-cents.ts';

/** One key's spend to add to `spend_cents`. */
export interface SpendDelta {
  keyId: string;
  cents: number;
}

/** Applies a batch in one statement; rejects when nothing was applied (then the batch is retried). */
export type SpendFlush = (deltas: readonly SpendDelta[]) => Promise<void>;

export interface SpendWriterOptions {
  flush: SpendFlush;
  /** Time between flushes; a call's spend reaches the database within about this long. */
  intervalMs?: number;
}

/** Short enough that spend is in the database within half a second, long enough to batch a burst. */
export const DEFAULT_SPEND_FLUSH_INTERVAL_MS = 250;

/** Bound of the shutdown flush: a dead database must not hold shutdown past the drain budget. */
const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

/**
 * Batched writer of `spend_cents` (SPEC.md, Virtual key; DESIGN.md section 4: nothing on the hot
 * path waits on a database write). Calls add their cost to an in-process sum per key; a timer
 * flushes the sums as one statement. A failed flush puts its deltas back, so the next flush
 * retries them: no increment is lost while the process lives, and `close()` flushes the rest.
 * The first failure of a run of failures is published (`switchyard:limits:spend-flush-error`), and
 * so is the recovery.
 */
export class SpendWriter {
  readonly #flush: SpendFlush;
  readonly #intervalMs: number;
  #pending = new Map<string, number>();
  /** The batch being written, still counted by `pendingFor` until it lands. */
  #inFlight = new Map<string, number>();
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;

  constructor(options: SpendWriterOptions) {
    this.#flush = options.flush;
    this.#intervalMs = options.intervalMs ?? DEFAULT_SPEND_FLUSH_INTERVAL_MS;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#intervalMs).unref();
  }

  add(keyId: string, cents: number): void {
    if (!(cents > 0)) return;
    // Summed exactly to the nano-cent: the statement writes the sum's text into a numeric column.
    this.#pending.set(keyId, exactCents((this.#pending.get(keyId) ?? 0) + cents));
  }

  /** Spend of `keyId` not yet in the database (pending or being written). */
  pendingFor(keyId: string): number {
    return (this.#pending.get(keyId) ?? 0) + (this.#inFlight.get(keyId) ?? 0);
  }

  /** Writes what is pending; one flush at a time (a second caller waits for the running one). */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushOnce().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  /**
   * Stops the timer and flushes what is left, trying up to `attempts` times within `timeoutMs`.
   * Throws SpendNotWrittenError, naming the deltas, when spend may not have been written.
   */
  async close(options: { attempts?: number; timeoutMs?: number } = {}): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
    for (let attempt = 0; attempt < (options.attempts ?? 3); attempt++) {
      // A flush still running at the deadline may yet land: its deltas are reported, not retried.
      const landed = await raceDeadline(this.flush(), deadline);
      if (!landed) break;
      if (this.#pending.size === 0) return;
    }
    const unwritten = new Map(this.#inFlight);
    for (const [keyId, cents] of this.#pending) unwritten.set(keyId, (unwritten.get(keyId) ?? 0) + cents);
    if (unwritten.size === 0) return;
    throw new SpendNotWrittenError([...unwritten].map(([keyId, cents]) => ({ keyId, cents })));
  }

  async #flushOnce(): Promise<void> {
    if (this.#pending.size === 0) return;
    this.#inFlight = this.#pending;
    this.#pending = new Map();
    // Sorted by id, so concurrent flushes of several replicas lock rows in one order.
    const deltas = [...this.#inFlight]
      .map(([keyId, cents]) => ({ keyId, cents }))
      .sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0));
    try {
      await this.#flush(deltas);
      if (this.#failing) {
        this.#failing = false;
        if (DIAGNOSTICS.spendFlushRecovered.hasSubscribers) DIAGNOSTICS.spendFlushRecovered.publish({});
      }
    } catch (error) {
      for (const { keyId, cents } of deltas) this.add(keyId, cents);
      if (!this.#failing) {
        this.#failing = true;
        const channel = DIAGNOSTICS.spendFlushError;
        if (channel.hasSubscribers) channel.publish({ error, pendingKeys: this.#pending.size });
      }
    } finally {
      this.#inFlight = new Map();
    }
  }
}

/** Raised by `close()` when spend could not be written; it carries what an operator must add by hand. */
export class SpendNotWrittenError extends Error {
  readonly deltas: readonly SpendDelta[];

  constructor(deltas: readonly SpendDelta[]) {
    super(`spend of ${deltas.length} virtual key(s) could not be written to the database`);
    this.name = 'SpendNotWrittenError';
    this.deltas = deltas;
  }
}

/** True when `work` settled before `deadline` (ms since the epoch). */
async function raceDeadline(work: Promise<void>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}
