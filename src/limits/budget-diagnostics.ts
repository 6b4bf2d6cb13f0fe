/**
 * Published by the budget settlement when a key's or team's period spend first reaches 80% and
 * 100% of its budget (once per period and threshold); alerts subscribe.
 */
export const BUDGET_THRESHOLD_CHANNEL = 'switchyard:budget:threshold';

export interface BudgetThresholdMessage {
  scope: 'key' | 'team';
  /** The key's or team's id. */
  id: string;
  percent: 80 | 100;
  /** The budget's period: `daily`, `weekly`, `monthly`, or `lifetime`. */
  period: string;
  /** Start of the period crossed (RFC 3339). */
  periodStart: string;
  spendCents: number;
  budgetCents: number;
}
