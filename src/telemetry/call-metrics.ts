import type { CallSummary } from '../records/call-summary.ts';
import { BucketHistogram } from './bucket-histogram.ts';
import { metricAttributes } from './gen-ai-attributes.ts';
import type {
  CounterPoint,
  HistogramPoint,
  Labels,
  MetricDescriptor,
  MetricFamily,
} from './metric-family.ts';
import { OVERFLOW_LABELS, SeriesIndex } from './series-index.ts';

/** Bucket advice of the GenAI semantic conventions for gen_ai.client.operation.duration (seconds). */
const DURATION_BUCKETS_S = Object.freeze([
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
]);
/** ... and for gen_ai.client.token.usage. */
const TOKEN_BUCKETS = Object.freeze([1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304]);

const REQUESTS: MetricDescriptor = {
  name: 'switchyard.requests',
  description:
    'Inference calls, by operation, public model, provider, status, error code and response cache result.',
  unit: '{request}',
};
const DURATION: MetricDescriptor = {
  name: 'gen_ai.client.operation.duration',
  description: 'Duration of inference calls, from authentication to the last byte.',
  unit: 's',
};
const TOKEN_USAGE: MetricDescriptor = {
  name: 'gen_ai.client.token.usage',
  description: 'Tokens per call, by gen_ai.token.type (input, output).',
  unit: '{token}',
};
const TOKENS: MetricDescriptor = {
  name: 'switchyard.tokens',
  description: 'Tokens used, by gen_ai.token.type (input, output).',
  unit: '{token}',
};
const COST: MetricDescriptor = {
  name: 'switchyard.cost',
  description: 'Cost of calls in cents (zero for models without pricing).',
  unit: '{cent}',
};

/** Everything counted for one label combination; labels are built once, when it first appears. */
interface CallSeries {
  readonly labels: Labels;
  readonly inputLabels: Labels;
  readonly outputLabels: Labels;
  requests: number;
  readonly duration: BucketHistogram;
  readonly inputUsage: BucketHistogram;
  readonly outputUsage: BucketHistogram;
  inputTokens: number;
  outputTokens: number;
  costCents: number;
}

function createSeries(call: CallSummary): CallSeries {
  return seriesWith(Object.freeze(metricAttributes(call)));
}

function seriesWith(labels: Labels): CallSeries {
  return {
    labels,
    inputLabels: Object.freeze({ ...labels, 'gen_ai.token.type': 'input' }),
    outputLabels: Object.freeze({ ...labels, 'gen_ai.token.type': 'output' }),
    requests: 0,
    duration: new BucketHistogram(DURATION_BUCKETS_S),
    inputUsage: new BucketHistogram(TOKEN_BUCKETS),
    outputUsage: new BucketHistogram(TOKEN_BUCKETS),
    inputTokens: 0,
    outputTokens: 0,
    costCents: 0,
  };
}

/**
 * The call metrics (count, duration, tokens, cost), counted in plain numbers per label
 * combination: a call costs a few Map lookups and additions whether or not OTLP export is on.
 * `GET /metrics` and the OTLP export both read `families()`.
 */
export class CallMetrics {
  readonly #series = new SeriesIndex<CallSummary, CallSeries>(createSeries, () =>
    seriesWith(OVERFLOW_LABELS),
  );

  record(call: CallSummary): void {
    // The label values of metricAttributes, in a fixed order; '' stands for "no error.type" and
    // for "no switchyard.cache" (the response cache is off).
    const series = this.#series.get(
      [
        call.operation,
        call.publicModel,
        call.provider ?? 'none',
        call.status,
        call.error?.code ?? '',
        call.cache ?? '',
      ],
      call,
    );
    series.requests += 1;
    series.duration.record(Math.max(0, call.finishedAtMs - call.startedAtMs) / 1000);
    if (call.inputTokens > 0 || call.outputTokens > 0) {
      series.inputUsage.record(call.inputTokens);
      series.outputUsage.record(call.outputTokens);
      series.inputTokens += call.inputTokens;
      series.outputTokens += call.outputTokens;
    }
    if (call.costCents > 0) series.costCents += call.costCents;
  }

  /** The metrics that have series, in a fixed order. */
  families(): MetricFamily[] {
    const all = this.#series.all();
    const requests: CounterPoint[] = [];
    const duration: HistogramPoint[] = [];
    const tokenUsage: HistogramPoint[] = [];
    const tokens: CounterPoint[] = [];
    const cost: CounterPoint[] = [];
    for (const series of all) {
      requests.push({ labels: series.labels, value: series.requests });
      duration.push(series.duration.point(series.labels));
      if (series.inputUsage.count > 0) {
        tokenUsage.push(series.inputUsage.point(series.inputLabels));
        tokenUsage.push(series.outputUsage.point(series.outputLabels));
        tokens.push({ labels: series.inputLabels, value: series.inputTokens });
        tokens.push({ labels: series.outputLabels, value: series.outputTokens });
      }
      if (series.costCents > 0) cost.push({ labels: series.labels, value: series.costCents });
    }
    const families: MetricFamily[] = [
      { kind: 'counter', descriptor: REQUESTS, points: requests },
      { kind: 'histogram', descriptor: DURATION, points: duration },
      { kind: 'histogram', descriptor: TOKEN_USAGE, points: tokenUsage },
      { kind: 'counter', descriptor: TOKENS, points: tokens },
      { kind: 'counter', descriptor: COST, points: cost },
    ];
    return families.filter((family) => family.points.length > 0);
  }
}
