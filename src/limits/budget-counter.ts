import { type CacheStore, CacheUnavailableError } from '../cache/cache-store.ts';
import { LIMIT_KEYS } from './limit-keys.ts';

/**
 * How long a budget counter lives in the cache store before it is seeded again from the
 * database. The counter can drift from `spend_cents`: a process that dies mid-call never releases
 * its reservation (it stays counted as spend), and a re-seed while calls are in
 * flight forgets their reservations. An hour bounds the first without re-seeding often.
 */
export const BUDGET_COUNTER_TTL_MS = 60 * 60_000;

/** A limit no counter reaches: counterReserve with it is "add when the counter exists". */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export interface BudgetCounterDeps {
  cache: CacheStore;
  /** The key's `spend_cents` as the database has it now (not the cached VirtualKey's). */
  readSpendCents(keyId: string): Promise<number>;
  /** Spend of the key accepted by this process but not yet in the database. */
  pendingSpendCents(keyId: string): number;
}

/**
 * The hot-path budget counter of a virtual key (SPEC.md, Limits: budget enforced from the cache
 * store): spend plus the reservations of calls in flight, in cents. Calls reserve their estimated
 * cost atomically (counterReserve) and settle the difference when they end, so concurrent calls
 * cannot together spend past the budget by more than one call's estimate error.
 */
export class BudgetCounter {
  readonly #deps: BudgetCounterDeps;
  /** One seeding per key at a time in this process: a burst after a flush reads the database once. */
  readonly #seeding = new Map<string, Promise<void>>();

  constructor(deps: BudgetCounterDeps) {
    this.#deps = deps;
  }

  /**
   * Reserves `amountCents` when spend plus reservations stays within `budgetCents`. A counter the
   * cache store has lost (restart, flush, expiry) is seeded from the database and tried once more.
   */
  async reserve(keyId: string, amountCents: number, budgetCents: number): Promise<BudgetDecision> {
    const key = LIMIT_KEYS.budget(keyId);
    let decision = await this.#deps.cache.counterReserve(key, amountCents, budgetCents);
    if (decision.status === 'missing') {
      await this.#seed(keyId);
      decision = await this.#deps.cache.counterReserve(key, amountCents, budgetCents);
    }
    if (decision.status === 'missing') {
      throw new CacheUnavailableError('the budget counter vanished while it was being seeded');
    }
    return { admitted: decision.status === 'admitted', usedCents: decision.value };
  }

  /**
   * Adds `deltaCents` (negative to release) to the counter when it exists. A counter that is gone
   * stays gone: the next reservation seeds it from the database, which will hold this call's spend.
   */
  async adjust(keyId: string, deltaCents: number): Promise<void> {
    if (deltaCents === 0) return;
    await this.#deps.cache.counterReserve(LIMIT_KEYS.budget(keyId), deltaCents, NO_LIMIT);
  }

  #seed(keyId: string): Promise<void> {
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
      String(stored + pending),
      BUDGET_COUNTER_TTL_MS,
    );
  }
}

export interface BudgetDecision {
  admitted: boolean;
  /** Spend plus reservations after the decision. */
  usedCents: number;
}
