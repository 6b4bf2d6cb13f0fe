import type { CacheStore } from '../cache/cache-store.ts';
import { exactCents } from './exact-cents.ts';
import { LIMIT_KEYS, type LimitScope, type ScopeRef, scopeOf } from './limit-keys.ts';

/**
 * How long a spend counter lives in the cache store before it is seeded again from the database.
 * It holds settled spend only (reservations live in their own log, reservation-leases.ts), so it
 * drifts from the database only by spend a dead process accepted but never wrote; an hour
 * bounds that without re-seeding often.
 */
export const BUDGET_COUNTER_TTL_MS = 60 * 60_000;

/** A budget's spend in one window: `periodStartMs` null is the cumulative `spend_cents`. */
export type SpendSource = (scope: LimitScope, periodStartMs: number | null) => number;

export interface BudgetCounterDeps {
  cache: CacheStore;
  /** The scope's spend in the window as the database has it now (not the cached VirtualKey's). */
  readSpendCents(scope: LimitScope, periodStartMs: number | null): Promise<number>;
  /** Spend of the scope in the window accepted by this process but not yet in the database. */
  pendingSpendCents: SpendSource;
}

/**
 * Seeds the hot-path spend counter of a key's or team's budget window (SPEC.md, Limits: budget
 * enforced from the cache store): settled spend, in cents. Calls reserve their worst-case cost
 * atomically with their other limits (CacheStore.admitCall) and settle their actual cost when
 * they end (settleCalls). A counter the cache store has lost (restart, flush, expiry), or the
 * first call of a new period, makes admitCall answer `missing`; it is seeded here from the database.
 */
export class BudgetCounter {
  readonly #deps: BudgetCounterDeps;
  /** One seeding per counter at a time in this process: a burst after a flush reads the database once. */
  readonly #seeding = new Map<string, Promise<void>>();

  constructor(deps: BudgetCounterDeps) {
    this.#deps = deps;
  }

  /** Seeds the counter of the window starting at `periodStartMs` unless another call or replica already did. */
  seed(ref: ScopeRef, periodStartMs: number | null = null): Promise<void> {
    const scope = scopeOf(ref);
    const counter = LIMIT_KEYS.budget(scope, periodStartMs);
    let seeding = this.#seeding.get(counter);
    if (seeding === undefined) {
      seeding = this.#seedOnce(scope, periodStartMs, counter).finally(() => this.#seeding.delete(counter));
      this.#seeding.set(counter, seeding);
    }
    return seeding;
  }

  async #seedOnce(scope: LimitScope, periodStartMs: number | null, counter: string): Promise<void> {
    // Pending spend is read on both sides of the database read and the larger kept: a batch that
    // lands in the database in between is then counted at most twice (too careful), never missed.
    const pendingBefore = this.#deps.pendingSpendCents(scope, periodStartMs);
    const stored = await this.#deps.readSpendCents(scope, periodStartMs);
    const pending = Math.max(pendingBefore, this.#deps.pendingSpendCents(scope, periodStartMs));
    // Another replica may seed first; then its value stands.
    await this.#deps.cache.setIfAbsent(counter, String(exactCents(stored + pending)), BUDGET_COUNTER_TTL_MS);
  }
}
