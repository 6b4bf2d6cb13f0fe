import type { CacheStore, TokenEntry } from '../cache/cache-store.ts';
import { exactCents } from './exact-cents.ts';
import { LIMIT_KEYS, type LimitScope, type ScopeRef, scopeOf } from './limit-keys.ts';
import type { UnsentSettlements } from './settlement-batcher.ts';

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
  /**
   * This process's calls of the budget the store may have lost with it: the reservations of its
   * calls in flight (ReservationLeases) and the settlements of counter `counterKey` not yet sent.
   */
  inFlight(scope: LimitScope, counterKey: string): { reservations: TokenEntry[]; unsent: UnsentSettlements };
  /** The reservations' lease (ReservationLeases.leaseMs). */
  leaseMs: number;
}

/**
 * Seeds the hot-path spend counter of a key's or team's budget window (SPEC.md, Limits: budget
 * enforced from the cache store): settled spend, in cents. Calls reserve their worst-case cost
 * atomically with their other limits (CacheStore.admitCall) and settle their actual cost when
 * they end (settleCalls). A counter the cache store has lost (restart, flush, expiry), or the
 * first call of a new period, makes admitCall answer `missing`; it is rebuilt here. A store that
 * lost the counter (FLUSHDB, a failover to an empty replica) lost the reservations of the calls in
 * flight with it: the rebuild takes this process's again in the same script, or the calls
 * admitted next would spend the budget a second time (issue 30 finding 8). Other replicas take
 * theirs again at their next lease renewal (reservation-leases.ts; docs/operations.md).
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
    // Read at the rebuild's sending, after every settlement sent before it (one connection, in
    // order): one not yet sent adds its cost itself, so it is left out here and its call held.
    const { reservations, unsent } = this.#deps.inFlight(scope, counter);
    // Another replica may seed first; then its value stands.
    await this.#deps.cache.rebuildBudget({
      key: counter,
      heldKey: LIMIT_KEYS.budgetHeld(scope),
      spentCents: exactCents(Math.max(0, stored + pending - unsent.costCents)),
      ttlMs: BUDGET_COUNTER_TTL_MS,
      reservations: [...reservations, ...unsent.calls],
      leaseMs: this.#deps.leaseMs,
    });
  }
}
