import { DeadlineQueue } from '../diagnostics/deadline-queue.ts';
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

/**
 * Deadlines for Redis commands without a timer per command. A timer per command (a setTimeout,
 * or the `AbortSignal.timeout` node-redis adds by default) costs a timer-list insertion and
 * removal and, for the AbortSignal, a timer that still fires and builds a DOMException seconds
 * after the reply (docs/decisions/hot-path.md, Redis command deadlines).
 *
 * Here a pending command is one small entry of a DeadlineQueue. Every command shares one
 * timeout, so the queue is in deadline order, and one unref'd interval, running only while
 * commands are pending, rejects the expired entries at its head and drops the finished ones:
 * O(1) per command. A command fails between `timeoutMs` and `timeoutMs + checkIntervalMs` after
 * it started (plus any event-loop delay, as with any timer), unless its reply had arrived by then.
 */
export class CommandDeadlines {
  #timeoutMs: number;
  #checkIntervalMs: number;
  #now: () => number;
  #queue = new DeadlineQueue<(error: Error) => void>();
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
    return this.#queue.size;
  }

  /**
   * Settles with `command`'s outcome, its error passed through `mapError`, or rejects with
   * CacheUnavailableError once the deadline has passed, whichever is first.
   */
  track<T>(command: Promise<T>, mapError: (error: unknown) => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = this.#queue.add(this.#now() + this.#timeoutMs, reject);
      if (this.#timer === undefined) this.#startTimer();
      command.then(
        (value) => {
          this.#queue.settle(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.#queue.settle(entry);
          reject(mapError(error));
        },
      );
    });
  }

  /** Stops the interval and fails whatever is still pending. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#queue.clear((reject) => reject(new CacheUnavailableError('the cache store is closed')));
  }

  #startTimer(): void {
    this.#timer = setInterval(() => this.#sweep(), this.#checkIntervalMs);
    // The interval must never keep the process alive: a pending command is someone else's handle.
    this.#timer.unref();
  }

  #sweep(): void {
    if (this.#queue.size === 0) {
      // Nothing was tracked for a whole interval: stop until the next command. Stopping only
      // after an idle interval keeps a steady load on one interval instead of one per sweep.
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    // Decided after the rest of the loop's turn: a busy process runs its timers before it reads
    // its sockets, so a reply that arrived in time is read, and settles its command, first
    // (store/database-errors.ts, withTimeout, says the same of the database).
    setImmediate(() => this.#expire());
  }

  #expire(): void {
    let expired = false;
    this.#queue.expireDue(this.#now(), (reject) => {
      reject(new CacheUnavailableError(`Redis did not answer within ${this.#timeoutMs} ms`));
      expired = true;
    });
    if (expired) this.#onExpired();
  }
}
