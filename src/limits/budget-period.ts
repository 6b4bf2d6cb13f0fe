/** A budget's period (DESIGN.md section 5, Governance): calendar periods in UTC; null is a lifetime budget. */
export const BUDGET_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** What decides a key's or team's budget window. */
export interface BudgetPolicy {
  budgetPeriod: BudgetPeriod | null;
  /** When reset-spend last started a new period (ms since the epoch); null when never. */
  budgetResetAtMs: number | null;
}

/**
 * The budget window in force at an instant. `startMs` null: a lifetime budget never reset, whose
 * spend is the cumulative `spend_cents`. `resetsAtMs` null: nothing but reset-spend ends it.
 */
export interface BudgetWindow {
  startMs: number | null;
  resetsAtMs: number | null;
}

const DAY_MS = 86_400_000;

/** The start of the calendar period holding `nowMs` (weeks start on Monday, as ISO 8601's do). */
export function periodStartMs(period: BudgetPeriod, nowMs: number): number {
  const day = Math.floor(nowMs / DAY_MS) * DAY_MS;
  if (period === 'daily') return day;
  if (period === 'weekly') return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
  const date = new Date(nowMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** The start of the calendar period after the one holding `nowMs`. */
export function nextPeriodStartMs(period: BudgetPeriod, nowMs: number): number {
  const start = periodStartMs(period, nowMs);
  if (period === 'daily') return start + DAY_MS;
  if (period === 'weekly') return start + 7 * DAY_MS;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/**
 * The window at `nowMs`: the calendar period, started later by a reset-spend inside it. Every
 * replica computes it from the policy and its clock, so the budget rolls over at the boundary
 * with no job: the next call simply counts against the new period's counter.
 */
export function budgetWindow(policy: BudgetPolicy, nowMs: number): BudgetWindow {
  const reset = policy.budgetResetAtMs;
  if (policy.budgetPeriod === null) return { startMs: reset, resetsAtMs: null };
  const calendar = periodStartMs(policy.budgetPeriod, nowMs);
  return {
    startMs: reset !== null && reset > calendar && reset <= nowMs ? reset : calendar,
    resetsAtMs: nextPeriodStartMs(policy.budgetPeriod, nowMs),
  };
}
