import { DeadlineQueue, type QueuedDeadline } from '../diagnostics/deadline-queue.ts';

/**
 * The wall-clock bound on one sandbox's hook calls. Every call of a sandbox has the same bound, so
 * their deadlines come in the order the calls started (a DeadlineQueue): one timer, set for the
 * oldest call still running, serves them all, where a Node.js timer made and cleared per call cost
 * more than the rest of the round trip on the gateway's side (docs/decisions/hot-path.md). The
 * timer holds the process open only while a call is running, as a timer per call did.
 */
export class WallBound {
  readonly #boundMs: number;
  /** Each running call's way to end it: reject its promise with the `expired` error. */
  readonly #calls = new DeadlineQueue<() => void>();
  #timer: NodeJS.Timeout | undefined;

  constructor(boundMs: number) {
    this.#boundMs = boundMs;
  }

  /**
   * Settles as `work` does, unless `boundMs` pass first: then rejects with what `expired` returns
   * (which may also stop the work), and `work`'s own outcome is ignored.
   */
  watch<T>(work: Promise<T>, expired: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const call = this.#calls.add(performance.now() + this.#boundMs, () => reject(expired()));
      this.#started();
      work.then(
        (value) => {
          this.#settled(call);
          resolve(value);
        },
        (error: unknown) => {
          this.#settled(call);
          reject(error);
        },
      );
    });
  }

  #started(): void {
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#expire(), this.#boundMs);
    else if (this.#calls.pending === 1) this.#timer.ref();
  }

  #settled(call: QueuedDeadline<() => void>): void {
    // The timer fires anyway (and finds nothing due): it no longer keeps an idle process open.
    if (this.#calls.settle(call) && this.#calls.pending === 0) this.#timer?.unref();
  }

  /** Ends every call past its deadline; sets the timer again for the oldest one left. */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    const next = this.#calls.expireDue(now, (end) => end());
    if (next !== null) this.#timer = setTimeout(() => this.#expire(), Math.max(1, Math.ceil(next - now)));
  }
}
