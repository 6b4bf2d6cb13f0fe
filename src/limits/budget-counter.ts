import type { CacheStore } from '../cache/cache-store.ts';
import { exactCents } from './exact-cents.ts';
import { LIMIT_KEYS } from './limit-keys.ts';

/**
 * How long a spend counter lives in the cache store before it is seeded again from the database.
 * It holds settled spend only (reservations live in their own log, reservation-leases.ts), so it
 * drifts from `spend_cents` only by spend a dead process accepted but never wrote; an hour
 * bounds that without re-seeding often.
 */
export const BUDGET_COUNTER_TTL_MS = 60 * 60_000;

export interface BudgetCounterDeps {
  cache: CacheStore;
  /** The key's `spend_cents` as the database has it now (not the cached VirtualKey's). */
  readSpendCents(keyId: string): Promise<number>;
  /** Spend of the key accepted by this process but not yet in the database. */
  pendingSpendCents(keyId: string): number;
}

/**
 * Seeds the hot-path spend counter of a virtual key (SPEC.md, Limits: budget enforced from the
 * cache store): settled spend, in cents. Calls reserve their worst-case cost atomically with their
 * other limits (CacheStore.admitCall) and settle their actual cost when they end (settleCalls).
 * A counter the cache store has lost (restart, flush, expiry) makes admitCall answer `missing`;
 * it is seeded here from the database.
 */
export class BudgetCounter {
  readonly #deps: BudgetCounterDeps;
  /** One seeding per key at a time in this process: a burst after a flush reads the database once. */
  readonly #seeding = new Map<string, Promise<void>>();

  constructor(deps: BudgetCounterDeps) {
    this.#deps = deps;
  }

  /** Seeds the key's counter unless another call or replica already did. */
  seed(keyId: string): Promise<void> {
    let seeding = this.#seeding.get(keyId);
    if (seeding === undefined) {
      seeding = this.#seedOnce(keyId).finally(() => this.#seeding.delete(keyId));
      this.#seeding.set(keyId, seeding);
    }
    return seeding;
  }

  async #seedOnce(keyId: string): Promise<void> {
    // Pending spend is read on both sides of the database read and the larger kept: a batch that
    // lands in the database in between is then counted at most twice (too careful), never missed.
    const pendingBefore = this.#deps.pendingSpendCents(keyId);
    const stored = await this.#deps.readSpendCents(keyId);
    const pending = Math.max(pendingBefore, this.#deps.pendingSpendCents(keyId));
    // Another replica may seed first; then its value stands.
    await this.#deps.cache.setIfAbsent(
      LIMIT_KEYS.budget(keyId),
      String(exactCents(stored + pending)),
      BUDGET_COUNTER_TTL_MS,
    );
  }
}
