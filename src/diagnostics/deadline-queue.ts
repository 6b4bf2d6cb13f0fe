/** An entry of a DeadlineQueue: its deadline, and what it holds until it settles or expires. */
export interface QueuedDeadline<T> {
  readonly at: number;
  /** Undefined once settled or expired, so a finished entry holds nothing. */
  value: T | undefined;
}

/** Compact the queue once this many finished entries sit before its head. */
const COMPACT_AFTER_ENTRIES = 1024;

/**
 * Deadlines that all share one bound, so they arrive in deadline order: a FIFO, swept from its
 * head, instead of a timer per entry (docs/decisions/hot-path.md, Redis command deadlines). The
 * owner keeps the timer; this keeps the order, drops the finished entries, and compacts, so a
 * queue that never empties under a steady load does not grow.
 */
export class DeadlineQueue<T> {
  #entries: QueuedDeadline<T>[] = [];
  #head = 0;
  #pending = 0;

  /** Entries added and not yet swept, finished ones included. */
  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** Entries neither settled nor expired. */
  get pending(): number {
    return this.#pending;
  }

  add(at: number, value: T): QueuedDeadline<T> {
    const entry: QueuedDeadline<T> = { at, value };
    this.#entries.push(entry);
    this.#pending += 1;
    return entry;
  }

  /** The entry finished before its deadline; false when it had finished already. */
  settle(entry: QueuedDeadline<T>): boolean {
    if (entry.value === undefined) return false;
    entry.value = undefined;
    this.#pending -= 1;
    return true;
  }

  /**
   * Hands every pending entry due at `now` to `expire` (oldest first), drops the finished ones at
   * the head, and returns the deadline of the oldest entry left, or null when none is.
   */
  expireDue(now: number, expire: (value: T) => void): number | null {
    const entries = this.#entries;
    let head = this.#head;
    while (head < entries.length) {
      const entry = entries[head];
      const value = entry.value;
      if (value !== undefined) {
        if (entry.at > now) break;
        entry.value = undefined;
        this.#pending -= 1;
        expire(value);
      }
      head++;
    }
    if (head === entries.length) {
      this.#entries = [];
      this.#head = 0;
      return null;
    }
    if (head >= COMPACT_AFTER_ENTRIES && head * 2 >= entries.length) {
      this.#entries = entries.slice(head);
      this.#head = 0;
    } else {
      this.#head = head;
    }
    return this.#entries[this.#head].at;
  }

  /** Hands every pending entry to `end` and empties the queue. */
  clear(end: (value: T) => void): void {
    const entries = this.#entries;
    this.#entries = [];
    this.#head = 0;
    this.#pending = 0;
    for (const entry of entries) {
      const value = entry.value;
      entry.value = undefined;
      if (value !== undefined) end(value);
    }
  }
}
