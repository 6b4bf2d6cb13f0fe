import { randomUUID } from 'node:crypto';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import { exactCents } from './exact-cents.ts';

/** One key's (or team's) spend to add to `spend_cents`. */
export interface SpendDelta {
  keyId: string;
  cents: number;
  /**
   * The latest budget window the spend fell in (budget-period.ts) and its share of `cents`, to
   * add to `period_spend_cents`; absent when it all fell outside any window (a lifetime budget
   * never reset). Spend of an older window counts in `cents` only: that period is over.
   */
  period?: { startMs: number; cents: number };
}

/** `null`: outside any budget window. */
type WindowStart = number | null;

/**
 * Applies a batch in one statement, once under `batchId` however often it is sent: a try whose
 * answer was lost may have landed, and the same batch sent again must then add nothing. Rejects
 * when it cannot say the batch was applied (then it is sent again as it is).
 */
export type SpendFlush = (deltas: readonly SpendDelta[], batchId: string) => Promise<void>;

/** Key id -> budget window start -> cents. */
type SpendByKey = Map<string, Map<WindowStart, number>>;

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
 * flushes the sums as one statement under a batch id. A failed flush keeps its batch as it is, and
 * the next flush sends it again under the same id before anything newer: a try that timed out
 * but landed is not added twice, so the statements can be bounded tightly (a stall's end costs at
 * most one bound, not 30 s of spend a SIGKILL would lose). No increment is lost while the process
 * lives, and `close()` flushes the rest.
 * The first failure of a run of failures is published (`switchyard:limits:spend-flush-error`), and
 * so is the recovery.
 */
export class SpendWriter {
  readonly #flush: SpendFlush;
  readonly #intervalMs: number;
  #pending: SpendByKey = new Map();
  /** The batch being written, or one that failed and is sent again: counted by `pendingFor` until it lands. */
  #batch: { id: string; spend: SpendByKey } | null = null;
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;
  #epoch = 0;

  constructor(options: SpendWriterOptions) {
    this.#flush = options.flush;
    this.#intervalMs = options.intervalMs ?? DEFAULT_SPEND_FLUSH_INTERVAL_MS;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#intervalMs).unref();
  }

  /** Adds spend of `keyId` in the budget window starting at `periodStartMs` (null: none). */
  add(keyId: string, cents: number, periodStartMs: WindowStart = null): void {
    if (!(cents > 0)) return;
    let windows = this.#pending.get(keyId);
    if (windows === undefined) {
      windows = new Map();
      this.#pending.set(keyId, windows);
    }
    // Summed exactly to the nano-cent: the statement writes the sum's text into a numeric column.
    windows.set(periodStartMs, exactCents((windows.get(periodStartMs) ?? 0) + cents));
  }

  /**
   * Spend of `keyId` not yet in the database (pending or being written): in the budget window
   * starting at `periodStartMs`, or in all (the cumulative spend's share) when it is null.
   */
  pendingFor(keyId: string, periodStartMs: WindowStart = null): number {
    return (
      windowSum(this.#pending.get(keyId), periodStartMs) +
      windowSum(this.#batch?.spend.get(keyId), periodStartMs)
    );
  }

  /**
   * Odd while a batch is being written, and moved on by every write: a reader that saw the same
   * even epoch before and after reading the database read it with no batch of this writer landing
   * meanwhile, so the database and `pendingFor` do not overlap (BudgetCounter's seed).
   */
  get epoch(): number {
    return this.#epoch;
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
      if (this.#pending.size === 0 && this.#batch === null) return;
    }
    const ids = new Set([...(this.#batch?.spend.keys() ?? []), ...this.#pending.keys()]);
    if (ids.size === 0) return;
    throw new SpendNotWrittenError([...ids].map((keyId) => ({ keyId, cents: this.pendingFor(keyId) })));
  }

  async #flushOnce(): Promise<void> {
    if (this.#batch === null) {
      if (this.#pending.size === 0) return;
      this.#batch = { id: randomUUID(), spend: this.#pending };
      this.#pending = new Map();
    }
    const batch = this.#batch;
    // Sorted by id, so concurrent flushes of several replicas lock rows in one order.
    const deltas = [...batch.spend]
      .map(([keyId, windows]) => deltaOf(keyId, windows))
      .sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0));
    this.#epoch++;
    try {
      await this.#flush(deltas, batch.id);
      this.#batch = null;
      if (this.#failing) {
        this.#failing = false;
        if (DIAGNOSTICS.spendFlushRecovered.hasSubscribers) DIAGNOSTICS.spendFlushRecovered.publish({});
      }
    } catch (error) {
      // The batch stays as it is, under its id, for the next flush: it may have landed.
      if (!this.#failing) {
        this.#failing = true;
        const channel = DIAGNOSTICS.spendFlushError;
        if (channel.hasSubscribers)
          channel.publish({ error, pendingKeys: batch.spend.size + this.#pending.size });
      }
    }
  }
}

function windowSum(windows: Map<WindowStart, number> | undefined, periodStartMs: WindowStart): number {
  if (windows === undefined) return 0;
  if (periodStartMs !== null) return windows.get(periodStartMs) ?? 0;
  let sum = 0;
  for (const cents of windows.values()) sum += cents;
  return sum;
}

/** One row's delta: every window's spend in `cents`, the latest window's in `period`. */
function deltaOf(keyId: string, windows: Map<WindowStart, number>): SpendDelta {
  let latest: WindowStart = null;
  for (const start of windows.keys())
    if (start !== null && (latest === null || start > latest)) latest = start;
  const delta: SpendDelta = { keyId, cents: exactCents(windowSum(windows, null)) };
  if (latest !== null) delta.period = { startMs: latest, cents: windows.get(latest) ?? 0 };
  return delta;
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
