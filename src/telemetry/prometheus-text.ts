import type { CounterPoint, HistogramPoint, Labels, MetricFamily } from './metric-family.ts';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The metrics in the Prometheus text exposition format (version 0.0.4), for `GET /metrics`. The
 * OpenTelemetry Prometheus exporter would open its own HTTP server; this serves the same data
 * through the gateway's authenticated route instead.
 */
export function toPrometheusText(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) lines.push(...familyLines(family));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** `gen_ai.client.operation.duration` in `s` -> `gen_ai_client_operation_duration_seconds`. */
export function prometheusName(name: string, unit: string): string {
  const base = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  return unit === 's' && !base.endsWith('_seconds') ? `${base}_seconds` : base;
}

function familyLines(family: MetricFamily): string[] {
  const { descriptor } = family;
  const base = prometheusName(descriptor.name, descriptor.unit);
  const description = escapeHelp(descriptor.description);
  if (family.kind === 'counter') {
    const name = `${base}_total`;
    return [
      `# HELP ${name} ${description}`,
      `# TYPE ${name} counter`,
      ...family.points.map((point: CounterPoint) => sample(name, labelText(point.labels), point.value)),
    ];
  }
  const lines = [`# HELP ${base} ${description}`, `# TYPE ${base} histogram`];
  for (const point of family.points) histogramLines(lines, base, point);
  return lines;
}

function histogramLines(lines: string[], base: string, point: HistogramPoint): void {
  const labels = labelText(point.labels);
  const bucketPrefix = labels === '' ? '' : `${labels},`;
  let cumulative = 0;
  point.boundaries.forEach((bound, index) => {
    cumulative += point.counts[index] ?? 0;
    lines.push(sample(`${base}_bucket`, `${bucketPrefix}le="${bound}"`, cumulative));
  });
  lines.push(sample(`${base}_bucket`, `${bucketPrefix}le="+Inf"`, point.count));
  lines.push(sample(`${base}_sum`, labels, point.sum));
  lines.push(sample(`${base}_count`, labels, point.count));
}

function labelText(labels: Labels): string {
  let text = '';
  for (const [key, value] of Object.entries(labels)) {
    text += `${text === '' ? '' : ','}${key.replace(/[^a-zA-Z0-9_]/g, '_')}="${escapeLabel(String(value))}"`;
  }
  return text;
}

function sample(name: string, labels: string, value: number): string {
  return `${name}${labels === '' ? '' : `{${labels}}`} ${formatValue(value)}`;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

function escapeLabel(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function escapeHelp(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}
