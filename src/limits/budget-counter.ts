import { setTimeout } from 'node:timers/promises';
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

/** Tries at reading the database between two spend batches, a pause apart (a batch takes milliseconds). */
const SEED_READ_ATTEMPTS = 5;
const SEED_READ_PAUSE_MS = 20;

/** A budget's spend in one window: `periodStartMs` null is the cumulative `spend_cents`. */
export type SpendSource = (scope: LimitScope, periodStartMs: number | null) => number;

export interface BudgetCounterDeps {
  cache: CacheStore;
  /** The scope's spend in the window as the database has it now (not the cached VirtualKey's). */
  readSpendCents(scope: LimitScope, periodStartMs: number | null): Promise<number>;
  /** Spend of the scope in the window accepted by this process but not yet in the database. */
  pendingSpendCents: SpendSource;
  /** The epoch of the scope's spend writer (SpendWriter.epoch): odd while a batch is written. */
  spendEpoch(scope: LimitScope): number;
  /**
   * This process's calls of the budget the store may have lost with it: the reservations of its
   * calls in flight (ReservationLeases) and the settlements of counter `counterKey` not yet sent.
   */
  inFlight(scope: LimitScope, counterKey: string): { reservations: TokenEntry[]; unsent: UnsentSettlements };
  /** The reservations' lease (ReservationLeases.leaseMs). */
  leaseMs: number;
  /** This process seeded the counter whose reservations log `heldKey` is (the other replicas are told). */
  onRebuilt?(heldKey: string): void;
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
 * theirs again when told (`onRebuilt`), and at their next lease renewal whatever happens to the
 * message (reservation-leases.ts; docs/operations.md).
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

  /**
   * The database's spend plus this process's unwritten spend, each batch once: the database is
   * read while no batch of the scope's writer is being written, the pending spend right after.
   * A batch written during the read is in the database or in the pending spend, unknown which;
   * the read is tried again, and after SEED_READ_ATTEMPTS the larger of the pending spend before
   * and after is kept (such a batch counted twice: too careful, never missed).
   */
  async #settledSpend(scope: LimitScope, periodStartMs: number | null): Promise<number> {
    const { readSpendCents, pendingSpendCents, spendEpoch } = this.#deps;
    for (let attempt = 1; ; attempt++) {
      const epoch = spendEpoch(scope);
      const pendingBefore = pendingSpendCents(scope, periodStartMs);
      const stored = await readSpendCents(scope, periodStartMs);
      const pending = pendingSpendCents(scope, periodStartMs);
      if (epoch % 2 === 0 && spendEpoch(scope) === epoch) return stored + pending;
      if (attempt === SEED_READ_ATTEMPTS) return stored + Math.max(pendingBefore, pending);
      await setTimeout(SEED_READ_PAUSE_MS);
    }
  }

  async #seedOnce(scope: LimitScope, periodStartMs: number | null, counter: string): Promise<void> {
    const settled = await this.#settledSpend(scope, periodStartMs);
    // Read at the rebuild's sending, after every settlement sent before it (one connection, in
    // order): one not yet sent adds its cost itself, so it is left out here and its call held.
    const { reservations, unsent } = this.#deps.inFlight(scope, counter);
    // Another replica may seed first; then its value stands.
    const heldKey = LIMIT_KEYS.budgetHeld(scope);
    const seeded = await this.#deps.cache.rebuildBudget({
      key: counter,
      heldKey,
      spentCents: exactCents(Math.max(0, settled - unsent.costCents)),
      ttlMs: BUDGET_COUNTER_TTL_MS,
      reservations: [...reservations, ...unsent.calls],
      leaseMs: this.#deps.leaseMs,
    });
    if (seeded) this.#deps.onRebuilt?.(heldKey);
  }
}
