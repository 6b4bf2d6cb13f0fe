/** Delay before the first restart of a run of crashes; it doubles with each further crash. */
const BASE_DELAY_MS = 250;
/** Longest wait between restarts: a worker that keeps dying is retried twice a minute, forever. */
const MAX_DELAY_MS = 30_000;
/** A worker that served this long before dying ends the run: its restart waits the base delay again. */
const STABLE_AFTER_MS = 60_000;

/**
 * Crash-loop protection of one worker slot: exponential backoff instead of giving up, so a worker
 * that dies because a dependency is away comes back once it returns, without spinning meanwhile.
 */
export class RestartBackoff {
  #crashes = 0;

  /** Crashes in the current run, the one just counted by `next` included. */
  get crashes(): number {
    return this.#crashes;
  }

  /** Counts a death and returns the delay before the restart; `listenedAt` is when the dead worker began serving. */
  next(listenedAt: number | undefined, now = Date.now()): number {
    if (listenedAt !== undefined && now - listenedAt >= STABLE_AFTER_MS) this.#crashes = 0;
    this.#crashes += 1;
    return Math.min(BASE_DELAY_MS * 2 ** (this.#crashes - 1), MAX_DELAY_MS);
  }
}
