/** Latency distributions in milliseconds with microsecond resolution (autocannon's are whole ms). */

export interface Percentiles {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface LatencySummary extends Percentiles {
  /** Calls answered 2xx and read to the end. */
  count: number;
  non2xx: number;
  errors: number;
  /** Time to the first byte of the body (the first SSE event of a stream). */
  ttfb: Percentiles | null;
  /** Fixed-rate runs: calls per second actually sent. */
  achievedRate: number | null;
  /**
   * Fixed-rate runs: the same percentiles measured from the instant each call was due rather than
   * sent, which also counts any lag of the generator itself (coordinated omission, Gil Tene).
   */
  fromSchedule: Percentiles | null;
  /** Fixed-rate runs: calls sent more than LATE_SEND_MS after they were due. */
  lateSends: number | null;
}

/** A send later than this means the generator, not the server, was behind. */
export const LATE_SEND_MS = 5;

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** Nearest-rank percentiles (sorts `values` in place). */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0)
    return { p50Ms: Number.NaN, p90Ms: Number.NaN, p99Ms: Number.NaN, maxMs: Number.NaN };
  values.sort((x, y) => x - y);
  const at = (q: number) => values[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)];
  return { p50Ms: round(at(0.5)), p90Ms: round(at(0.9)), p99Ms: round(at(0.99)), maxMs: round(at(1)) };
}
