import { type HrTime, ValueType } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type CollectionResult,
  DataPointType,
  type MetricData,
  type MetricDescriptor,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import type { MetricFamily } from './metric-family.ts';

/** The instrumentation scope the metrics are exported under. */
const SCOPE = { name: 'switchyard' };

/**
 * Hands the in-process metrics to an OpenTelemetry metric reader when OTLP export is on (the
 * SDK's MetricProducer hook): the counts are kept once, in plain numbers, and converted only when
 * the reader collects (every export interval and at shutdown), never per call. Cumulative, from
 * `startMs`, as the SDK's own counters and histograms are by default.
 */
export class FamilyProducer implements MetricProducer {
  readonly #families: () => readonly MetricFamily[];
  readonly #resource: Resource;
  readonly #startTime: HrTime;

  constructor(families: () => readonly MetricFamily[], resource: Resource, startMs: number) {
    this.#families = families;
    this.#resource = resource;
    this.#startTime = hrTime(startMs);
  }

  async collect(): Promise<CollectionResult> {
    const families = this.#families();
    const endTime = hrTime(Date.now());
    const metrics = families.map((family) => toMetricData(family, this.#startTime, endTime));
    return {
      resourceMetrics: {
        resource: this.#resource,
        // An empty list makes the periodic reader skip the export.
        scopeMetrics: metrics.length === 0 ? [] : [{ scope: SCOPE, metrics }],
      },
      errors: [],
    };
  }
}

function toMetricData(family: MetricFamily, startTime: HrTime, endTime: HrTime): MetricData {
  // DOUBLE, as the SDK's createCounter and createHistogram default to.
  const descriptor: MetricDescriptor = { ...family.descriptor, valueType: ValueType.DOUBLE };
  const aggregationTemporality = AggregationTemporality.CUMULATIVE;
  if (family.kind === 'counter') {
    return {
      descriptor,
      aggregationTemporality,
      dataPointType: DataPointType.SUM,
      isMonotonic: true,
      dataPoints: family.points.map((point) => ({
        startTime,
        endTime,
        attributes: point.labels,
        value: point.value,
      })),
    };
  }
  return {
    descriptor,
    aggregationTemporality,
    dataPointType: DataPointType.HISTOGRAM,
    dataPoints: family.points.map((point) => ({
      startTime,
      endTime,
      attributes: point.labels,
      value: {
        buckets: { boundaries: [...point.boundaries], counts: [...point.counts] },
        sum: point.sum,
        count: point.count,
        min: point.min,
        max: point.max,
      },
    })),
  };
}

/** Milliseconds since the epoch as OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}
