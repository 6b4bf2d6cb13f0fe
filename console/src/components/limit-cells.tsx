import { count, time } from '../format.ts';
import type { BudgetPeriod } from '../types.ts';
import { SpendBar } from './spend-bar.tsx';

interface Holder {
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetCents: number | null;
  budgetPeriod: BudgetPeriod;
  periodSpendCents: number;
  budgetResetsAt: string | null;
}

/** A key's or a team's limits, budget left as a bar, and budget period: three table cells. */
export function LimitCells({ holder, subject }: { holder: Holder; subject: string }) {
  return (
    <>
      <td>
        {count(holder.rpmLimit)} rpm · {count(holder.tpmLimit)} tpm
      </td>
      <td>
        <SpendBar spent={holder.periodSpendCents} budget={holder.budgetCents} label={subject} />
      </td>
      <td>
        {holder.budgetPeriod ?? 'lifetime'}
        {holder.budgetResetsAt && <span class="id">resets {time(holder.budgetResetsAt)}</span>}
      </td>
    </>
  );
}

/** Starts a new budget period of a key or a team (`POST …/reset-spend`). */
export function ResetSpendButton({ subject, onReset }: { subject: string; onReset(): void }) {
  return (
    <button type="button" aria-label={`Reset spend of ${subject}`} onClick={onReset}>
      Reset spend
    </button>
  );
}
