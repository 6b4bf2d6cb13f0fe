import type { BudgetPolicy } from './budget-period.ts';
import { budgetWindow } from './budget-period.ts';
import type { SpendReport } from './settled-spend.ts';
import { type StoredSpend, windowSpendOf } from './spend-statement.ts';

/**
 * The read-only spends of a key or team row as the admin API shows them: the database's figures
 * (the batched spend flush lands within a fraction of a second), in the budget window in force now.
 */
export function storedSpendView(policy: BudgetPolicy, row: StoredSpend, nowMs = Date.now()): SpendReport {
  const window = budgetWindow(policy, nowMs);
  return {
    spendCents: Number(row.spend_cents),
    periodSpendCents: windowSpendOf(row, window.startMs),
    budgetResetsAt: window.resetsAtMs === null ? null : new Date(window.resetsAtMs).toISOString(),
  };
}
