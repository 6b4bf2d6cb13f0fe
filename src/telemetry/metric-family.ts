/** Label names and values of one series, as OpenTelemetry attributes (strings, and the overflow flag). */
export type Labels = Readonly<Record<string, string | boolean>>;

/** A metric as OpenTelemetry names it; its Prometheus name is derived (prometheus-text.ts). */
export interface MetricDescriptor {
  name: string;
  description: string;
  unit: string;
}

export interface CounterPoint {
  labels: Labels;
  value: number;
}

/** Explicit-bucket histogram: `counts[i]` holds values in (boundaries[i - 1], boundaries[i]]. */
export interface HistogramPoint {
  labels: Labels;
  boundaries: readonly number[];
  /** One more than `boundaries`: the last counts values above the highest boundary. */
  counts: readonly number[];
  sum: number;
  count: number;
  min: number;
  max: number;
}

/**
 * A snapshot of one metric's series, cumulative since the process started: what `GET /metrics`
 * renders and what the OTLP export sends. Only series that were recorded are listed.
 */
export type MetricFamily =
  | { kind: 'counter'; descriptor: MetricDescriptor; points: CounterPoint[] }
  | { kind: 'histogram'; descriptor: MetricDescriptor; points: HistogramPoint[] };
