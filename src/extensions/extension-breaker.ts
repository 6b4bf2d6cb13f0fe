/** A snapshot of a breaker for the admin API: never the content of the call that failed. */
export interface BreakerView {
  /** `open`: tripped (the runtime names it `tripped` or `skipped` by the extension's `critical`). */
  state: 'active' | 'open';
  consecutiveFailures: number;
  lastFailure: { reason: string; at: string } | null;
}

/**
 * One extension's failure breaker on this replica (DESIGN.md section 5): `threshold` consecutive
 * failures open it, a success resets the count, and only a reset (admin, a new source, a
 * restart) closes it again.
 */
export class ExtensionBreaker {
  readonly #threshold: number;
  #failures = 0;
  #open = false;
  #lastFailure: { reason: string; at: string } | null = null;

  constructor(threshold: number) {
    this.#threshold = threshold;
  }

  get state(): 'active' | 'open' {
    return this.#open ? 'open' : 'active';
  }

  succeeded(): void {
    this.#failures = 0;
  }

  /** Counts a failure; true when this one tripped the breaker. */
  failed(reason: string, atMs = Date.now()): boolean {
    this.#failures += 1;
    this.#lastFailure = { reason, at: new Date(atMs).toISOString() };
    if (this.#open || this.#failures < this.#threshold) return false;
    this.#open = true;
    return true;
  }

  reset(): void {
    this.#failures = 0;
    this.#open = false;
  }

  view(): BreakerView {
    return { state: this.state, consecutiveFailures: this.#failures, lastFailure: this.#lastFailure };
  }
}
