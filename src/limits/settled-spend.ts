import type { LimitHolder } from '../auth/principal.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import type { SpendSource } from './budget-counter.ts';
import { budgetWindow } from './budget-period.ts';
import { exactCents } from './exact-cents.ts';
import { LIMIT_KEYS, type LimitScope } from './limit-keys.ts';
import { type StoredSpend, windowSpendOf } from './spend-statement.ts';

export interface SettledSpendDeps {
  cache: CacheStore;
  /** Spend of a key or team accepted by this process but not yet in the database. */
  pendingSpendCents: SpendSource;
  /** The clock budget periods are read on; Date.now by default. */
  now?(): number;
}

/** A key's or team's spend as a reader sees it (DESIGN.md section 5, Governance). */
export interface SpendReport {
  /** Cumulative. */
  spendCents: number;
  /** In the budget window in force (the cumulative spend for a lifetime budget never reset). */
  periodSpendCents: number;
  /** When the budget period ends (ISO 8601); null for a lifetime budget. */
  budgetResetsAt: string | null;
}

/**
 * A key's or team's settled spend for a reader (not for admission, which decides in the cache
 * store): the window's budget counter every replica settles into when it has a budget, else the
 * database's figures plus what this process has not written yet. A cache store that cannot
 * answer falls back to the database: a spend report is worth more than a 503.
 */
export async function readSpendReport(
  deps: SettledSpendDeps,
  scope: LimitScope,
  holder: LimitHolder,
  stored: StoredSpend,
): Promise<SpendReport> {
  const window = budgetWindow(holder, deps.now?.() ?? Date.now());
  const fromDatabase = (start: number | null) =>
    exactCents(windowSpendOf(stored, start) + deps.pendingSpendCents(scope, start));
  const spendCents = fromDatabase(null);
  let periodSpendCents = window.startMs === null ? spendCents : fromDatabase(window.startMs);
  if (holder.budgetCents !== null) {
    try {
      const counter = await deps.cache.get(LIMIT_KEYS.budget(scope, window.startMs));
      if (counter !== null) periodSpendCents = exactCents(Number(counter));
    } catch {
      // The database's figure above.
    }
  }
  return {
    spendCents: window.startMs === null ? Math.max(spendCents, periodSpendCents) : spendCents,
    periodSpendCents,
    budgetResetsAt: window.resetsAtMs === null ? null : new Date(window.resetsAtMs).toISOString(),
  };
}
