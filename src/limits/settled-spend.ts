import type { CacheStore } from '../cache/cache-store.ts';
import { exactCents } from './exact-cents.ts';
import { LIMIT_KEYS } from './limit-keys.ts';

export interface SettledSpendDeps {
  cache: CacheStore;
  /** Spend of the key accepted by this process but not yet in the database. */
  pendingSpendCents(keyId: string): number;
}

/**
 * A key's settled spend for a reader (not for admission, which decides in the cache store): the
 * budget counter every replica settles into when the key has one, else the database's
 * `spend_cents` plus what this process has not written yet. A cache store that cannot answer
 * falls back to the database: a spend report is worth more than a 503.
 */
export async function settledSpendCents(
  deps: SettledSpendDeps,
  key: { id: string; budgetCents: number | null },
  storedCents: number,
): Promise<number> {
  if (key.budgetCents !== null) {
    try {
      const counter = await deps.cache.get(LIMIT_KEYS.budget(key.id));
      if (counter !== null) return exactCents(Number(counter));
    } catch {
      // The database's figure below.
    }
  }
  return exactCents(storedCents + deps.pendingSpendCents(key.id));
}
