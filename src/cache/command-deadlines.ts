import { CacheUnavailableError } from './cache-store.ts';

export interface CommandDeadlinesOptions {
  /** A command still pending this long after it started fails with CacheUnavailableError. */
  timeoutMs: number;
  /** How often the pending commands are checked; a command fails at most this late. */
  checkIntervalMs: number;
  /** Monotonic clock in ms; replaceable so tests can drive it with mocked timers. */
  now?: () => number;
  /**
   * Called once per check that failed at least one command. A command past its deadline may still
   * be waiting for a reply the connection lost: its owner must reset the connection, or that
   * command's place in the reply order takes the next command's reply.
   */
  onExpired?: () => void;
}

interface PendingCommand {
  readonly deadline: number;
  /** Undefined once the command settled (or expired), so a finished command holds nothing. */
  reject: ((error: Error) => void) | undefined;
}

/** Compact the queue once this many finished slots sit before its head. */
const COMPACT_AFTER_ENTRIES = 1024;

/**
 * Deadlines for Redis commands without a timer per command. A timer per command (a setTimeout,
 * or the `AbortSignal.timeout` node-redis adds by default) costs a timer-list insertion and
 * removal and, for the AbortSignal, a timer that still fires and builds a DOMException seconds
 * after the reply (docs/decisions/hot-path.md, Redis command deadlines).
 *
 * Here a pending command is one small entry appended to a FIFO. Every command shares one
 * timeout, so the FIFO is in deadline order, and one unref'd interval, running only while
 * commands are pending, rejects the expired entries at its head and drops the finished ones:
 * O(1) per command. A command fails between `timeoutMs` and `timeoutMs + checkIntervalMs` after
 * it started (plus any event-loop delay, as with any timer).
 */
export class CommandDeadlines {
  #timeoutMs: number;
  #checkIntervalMs: number;
  #now: () => number;
  #queue: PendingCommand[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  #onExpired: () => void;

  constructor(options: CommandDeadlinesOptions) {
    this.#onExpired = options.onExpired ?? (() => {});
    this.#timeoutMs = options.timeoutMs;
    this.#checkIntervalMs = options.checkIntervalMs;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Commands started and not yet swept, finished ones included (for tests). */
  get size(): number {
    return this.#queue.length - this.#head;
  }

  /**
   * Settles with `command`'s outcome, its error passed through `mapError`, or rejects with
   * CacheUnavailableError once the deadline has passed, whichever is first.
   */
  track<T>(command: Promise<T>, mapError: (error: unknown) => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: PendingCommand = { deadline: this.#now() + this.#timeoutMs, reject };
      this.#queue.push(entry);
      if (this.#timer === undefined) this.#startTimer();
      command.then(
        (value) => {
          entry.reject = undefined;
          resolve(value);
        },
        (error: unknown) => {
          entry.reject = undefined;
          reject(mapError(error));
        },
      );
    });
  }

  /** Stops the interval and fails whatever is still pending. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (let i = this.#head; i < this.#queue.length; i++) {
      this.#queue[i].reject?.(new CacheUnavailableError('the cache store is closed'));
    }
    this.#queue = [];
    this.#head = 0;
  }

  #startTimer(): void {
    this.#timer = setInterval(() => this.#sweep(), this.#checkIntervalMs);
    // The interval must never keep the process alive: a pending command is someone else's handle.
    this.#timer.unref();
  }

  #sweep(): void {
    const queue = this.#queue;
    if (this.#head === queue.length) {
      // Nothing was tracked for a whole interval: stop until the next command. Stopping only
      // after an idle interval keeps a steady load on one interval instead of one per sweep.
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    const now = this.#now();
    let head = this.#head;
    let expired = false;
    while (head < queue.length) {
      const entry = queue[head];
      if (entry.reject !== undefined) {
        if (entry.deadline > now) break;
        entry.reject(new CacheUnavailableError(`Redis did not answer within ${this.#timeoutMs} ms`));
        entry.reject = undefined;
        expired = true;
      }
      head++;
    }
    if (head === queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (head >= COMPACT_AFTER_ENTRIES && head * 2 >= queue.length) {
      this.#queue = queue.slice(head);
      this.#head = 0;
    } else {
      this.#head = head;
    }
    if (expired) this.#onExpired();
  }
}
