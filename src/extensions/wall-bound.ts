/** A call being watched: its deadline, and how to end it if it passes. */
interface Watched {
  deadline: number;
  settled: boolean;
  expire: () => void;
}

/**
 * The wall-clock bound on one sandbox's hook calls. Every call of a sandbox has the same bound, so
 * their deadlines come in the order the calls started: one timer, set for the oldest call still
 * running, serves them all, where a Node.js timer made and cleared per call cost more than the
 * rest of the round trip on the gateway's side (docs/decisions/hot-path.md). The timer holds the
 * process open only while a call is running, as a timer per call did.
 */
export class WallBound {
  readonly #boundMs: number;
  /** Oldest first; the settled ones at the front are dropped as they settle. */
  #calls: Watched[] = [];
  #head = 0;
  #running = 0;
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
      const call: Watched = {
        deadline: performance.now() + this.#boundMs,
        settled: false,
        expire: () => reject(expired()),
      };
      this.#calls.push(call);
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
    this.#running += 1;
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#expire(), this.#boundMs);
    else if (this.#running === 1) this.#timer.ref();
  }

  #settled(call: Watched): void {
    if (call.settled) return;
    call.settled = true;
    this.#running -= 1;
    this.#dropSettled();
    // The timer fires anyway (and finds nothing due): it no longer keeps an idle process open.
    if (this.#running === 0) this.#timer?.unref();
  }

  #dropSettled(): void {
    while (this.#head < this.#calls.length && this.#calls[this.#head].settled) this.#head += 1;
    if (this.#head === this.#calls.length) {
      this.#calls = [];
      this.#head = 0;
    }
  }

  /** Ends every call past its deadline; sets the timer again for the oldest one left. */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    while (this.#head < this.#calls.length) {
      const call = this.#calls[this.#head];
      if (!call.settled && call.deadline > now) break;
      this.#head += 1;
      if (call.settled) continue;
      call.settled = true;
      this.#running -= 1;
      call.expire();
    }
    this.#dropSettled();
    if (this.#head < this.#calls.length) {
      const next = this.#calls[this.#head].deadline - now;
      this.#timer = setTimeout(() => this.#expire(), Math.max(1, Math.ceil(next)));
    }
  }
}
