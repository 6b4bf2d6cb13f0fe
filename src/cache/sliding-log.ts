import type { WindowDecision } from './cache-store.ts';

interface LogEntry {
  readonly ts: number;
  readonly id: string;
  cost: number;
  /** False once released or replaced; a dead entry only waits to be dropped from the queue. */
  live: boolean;
}

/** Compact the queue once this many dead slots sit before its head. */
const COMPACT_AFTER_ENTRIES = 1024;

/**
 * One sliding log in process memory (the in-memory twin of the Redis sorted set in
 * redis-scripts.ts): a queue of entries in timestamp order with a running sum, so pruning costs
 * O(expired) and admission O(1). An entry stays in the window while `now - ts < windowMs`.
 */
export class SlidingLog {
  #entries: LogEntry[] = [];
  #head = 0;
  #sum = 0;
  #byId = new Map<string, LogEntry>();
  /** The window of the last call, so the sweep can prune an idle log. */
  windowMs = 0;

  get isEmpty(): boolean {
    return this.#head === this.#entries.length;
  }

  get used(): number {
    return this.#sum;
  }

  /** Drops the entries that left the window. */
  prune(nowMs: number, windowMs: number): void {
    this.windowMs = windowMs;
    const cutoff = nowMs - windowMs;
    const entries = this.#entries;
    while (this.#head < entries.length && entries[this.#head].ts <= cutoff) {
      this.#kill(entries[this.#head]);
      this.#head++;
    }
    if (this.isEmpty) {
      this.#entries = [];
      this.#head = 0;
      this.#sum = 0;
    } else if (this.#head >= COMPACT_AFTER_ENTRIES && this.#head * 2 >= entries.length) {
      this.#entries = entries.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The cost `id` holds in the window; 0 when it holds none. */
  costOf(id: string): number {
    return this.#byId.get(id)?.cost ?? 0;
  }

  /**
   * Moves `id` to `nowMs`, its cost unchanged: a lease renewed; an id the log lacks is taken with
   * `cost` (a reservation the store lost, named by the call that still holds it).
   */
  hold(nowMs: number, id: string, cost: number): void {
    this.admit(nowMs, id, this.#byId.get(id)?.cost ?? cost, Number.POSITIVE_INFINITY);
  }

  /** True when `cost` under `id` fits the window (an earlier entry of the same id would be replaced). */
  fits(id: string, cost: number, limit: number): boolean {
    return this.#sum - this.costOf(id) + cost <= limit;
  }

  /** Admits `cost` under `id` when the window has room, replacing an earlier entry of the same id. */
  admit(nowMs: number, id: string, cost: number, limit: number): boolean {
    if (!this.fits(id, cost, limit)) return false;
    const previous = this.#byId.get(id);
    if (previous !== undefined) this.#kill(previous);
    const entry: LogEntry = { ts: nowMs, id, cost, live: true };
    this.#entries.push(entry);
    this.#byId.set(id, entry);
    this.#sum += cost;
    return true;
  }

  /** Replaces the cost of a live entry; 0 releases it. */
  adjust(id: string, cost: number): void {
    const entry = this.#byId.get(id);
    if (entry === undefined) return;
    if (cost === 0) {
      this.#kill(entry);
      this.#dropDeadTail();
      return;
    }
    this.#sum += cost - entry.cost;
    entry.cost = cost;
  }

  /** The window's state for an admission of `cost` that was (or was not) just decided. */
  decide(nowMs: number, admitted: boolean, cost: number, limit: number): WindowDecision {
    const used = this.#sum;
    const entries = this.#entries;
    const resetMs = this.isEmpty ? 0 : entries[entries.length - 1].ts + this.windowMs - nowMs;
    let retryAfterMs = 0;
    if (!admitted) {
      // Walk from the oldest entry until enough has expired to make room for `cost`; when even
      // an empty window has no room (cost above limit) waiting cannot help: answer the reset.
      const need = used + cost - limit;
      retryAfterMs = resetMs;
      let freed = 0;
      for (let i = this.#head; i < entries.length; i++) {
        if (!entries[i].live) continue;
        freed += entries[i].cost;
        if (freed >= need) {
          retryAfterMs = entries[i].ts + this.windowMs - nowMs;
          break;
        }
      }
    }
    return {
      admitted,
      used,
      limit,
      remaining: Math.max(0, limit - used),
      retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)),
      resetMs: Math.max(0, Math.ceil(resetMs)),
    };
  }

  #kill(entry: LogEntry): void {
    if (!entry.live) return;
    entry.live = false;
    this.#sum -= entry.cost;
    if (this.#byId.get(entry.id) === entry) this.#byId.delete(entry.id);
  }

  /** Keeps the newest entry live, so `resetMs` reads it in O(1). */
  #dropDeadTail(): void {
    const entries = this.#entries;
    while (entries.length > this.#head && !entries[entries.length - 1].live) entries.pop();
    if (this.isEmpty) {
      this.#entries = [];
      this.#head = 0;
      this.#sum = 0;
    }
  }
}

/** What `decide` answers for a window without entries, without building a log to ask it. */
export function emptyWindowDecision(admitted: boolean, limit: number): WindowDecision {
  return { admitted, used: 0, limit, remaining: Math.max(0, limit), retryAfterMs: 0, resetMs: 0 };
}
