/**
 * The entries of `npm run bench` besides the scenario tables: each starts its own processes,
 * measures one line (or a few) of the performance budget (docs/performance.md, "Budget per
 * call and per unit of work") and says pass or fail. `npm run bench` runs the scenarios and then
 * every entry; `npm run bench -- --only <id>[,<id>]` runs the ones named (`scenarios` is the
 * scenario tables).
 */
import type { BudgetCheck } from './derived.ts';

export interface EntryReport {
  /** Tables and notes of the entry, printed as they are. */
  text: string;
  /** Its lines of the budget, each pass, fail or not measured with the figure. */
  budget: BudgetCheck[];
  /** Every figure, for bench/results/<date>.json. */
  figures: unknown;
}

export interface BenchEntry {
  id: string;
  title: string;
  run(resultsDir: string): Promise<EntryReport>;
}

/** A line of the budget: `value` against `limit`, passing when at most (or at least) the limit. */
export function budgetLine(
  rule: string,
  value: number | null,
  limit: number,
  unit: string,
  passWhen: 'at most' | 'at least' = 'at most',
): BudgetCheck {
  if (value === null || !Number.isFinite(value)) return { rule, value: '-', verdict: 'not measured' };
  const pass = passWhen === 'at most' ? value <= limit : value >= limit;
  const shown = Number.isInteger(value) ? value.toLocaleString('en') : value.toFixed(2);
  return { rule, value: `${shown}${unit}`, verdict: pass ? 'pass' : 'fail' };
}

/**
 * `numerator / denominator` as a budget figure, or null (not measured) when the denominator is not
 * a positive finite number: a ratio over a figure at or under zero means nothing, and a run once
 * printed -6.00x as a pass.
 */
export function ratioOf(numerator: number, denominator: number): number | null {
  if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator <= 0) return null;
  return numerator / denominator;
}

/** One budget line per check, as the report prints them. */
export function renderBudget(budget: readonly BudgetCheck[]): string[] {
  return budget.map((b) => `  [${b.verdict}] ${b.rule}: ${b.value}`);
}
