/**
 * Figures derived from the measured ones: each scenario against its baseline and its Node.js
 * limit, and the performance budget of docs/performance.md checked against them.
 */
import type { ScenarioResult } from './scenarios.ts';

export interface DerivedFigures {
  /** Throughput as a share of the same call through the bare proxy (1 = as fast). */
  throughputVsNodeLimit: number | null;
  /** Concurrency 1, over the same call straight to the fake upstream. */
  addedP50Ms: number | null;
  addedP99Ms: number | null;
  addedTtfbP50Ms: number | null;
  /** The fixed-rate phase, over the baseline's fixed-rate phase. */
  addedAtRateP50Ms: number | null;
}

export interface BudgetCheck {
  rule: string;
  value: string;
  verdict: 'pass' | 'fail' | 'not measured';
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

function measured(results: readonly ScenarioResult[], id: string | null) {
  const result = results.find((r) => r.spec.id === id);
  return result?.status === 'measured' ? result.figures : null;
}

export function deriveFigures(results: readonly ScenarioResult[]): Record<string, DerivedFigures> {
  const derived: Record<string, DerivedFigures> = {};
  for (const result of results) {
    if (result.status !== 'measured') continue;
    const own = result.figures;
    const base = measured(results, result.spec.baseline);
    const limit = measured(results, result.spec.nodeLimit);
    const diff = (a: number | undefined, b: number | undefined) =>
      a === undefined || b === undefined ? null : round(a - b);
    derived[result.spec.id] = {
      throughputVsNodeLimit: limit === null ? null : round(own.saturation.rps / limit.saturation.rps),
      addedP50Ms: diff(own.sequential?.p50Ms, base?.sequential?.p50Ms),
      addedP99Ms: diff(own.sequential?.p99Ms, base?.sequential?.p99Ms),
      addedTtfbP50Ms: diff(own.sequential?.ttfb?.p50Ms, base?.sequential?.ttfb?.p50Ms),
      addedAtRateP50Ms: diff(own.rate?.p50Ms, base?.rate?.p50Ms),
    };
  }
  return derived;
}

/** The budget of issue 8 (docs/performance.md, "Budget"). */
export function checkBudget(
  results: readonly ScenarioResult[],
  derived: Record<string, DerivedFigures>,
): BudgetCheck[] {
  const check = (
    rule: string,
    value: number | null | undefined,
    limit: number,
    above: boolean,
    unit = '',
  ) => {
    if (value === null || value === undefined || Number.isNaN(value)) {
      return { rule, value: '-', verdict: 'not measured' as const };
    }
    const pass = above ? value >= limit : value < limit;
    return {
      rule,
      value: `${round(value, 3)}${unit}`,
      verdict: pass ? ('pass' as const) : ('fail' as const),
    };
  };
  const gatewayRss = (phase: 'rssMb' | 'rateRssMb') => {
    const medians = ['c', 'd', 'e']
      .map((id) => measured(results, id)?.[phase]?.median)
      .filter((mb): mb is number => mb !== undefined);
    return medians.length === 0 ? null : Math.max(...medians);
  };
  return [
    check('(c) throughput >= 80% of (b)', derived.c?.throughputVsNodeLimit, 0.8, true),
    check('(d) throughput >= 60% of (b)', derived.d?.throughputVsNodeLimit, 0.6, true),
    check('(c) added latency p50 < 0.3 ms (concurrency 1)', derived.c?.addedP50Ms, 0.3, false, ' ms'),
    check('(c) added latency p99 < 1 ms (concurrency 1)', derived.c?.addedP99Ms, 1, false, ' ms'),
    check('(d) added latency p50 < 0.5 ms (concurrency 1)', derived.d?.addedP50Ms, 0.5, false, ' ms'),
    check('(e) SSE added TTFB p50 < 0.5 ms (concurrency 1)', derived.e?.addedTtfbP50Ms, 0.5, false, ' ms'),
    check(
      'gateway RSS < 150 MB at steady load (c, d, e; at saturation)',
      gatewayRss('rssMb'),
      150,
      false,
      ' MB',
    ),
    check(
      'gateway RSS < 150 MB at steady load (c, d, e; at the fixed rate)',
      gatewayRss('rateRssMb'),
      150,
      false,
      ' MB',
    ),
  ];
}
