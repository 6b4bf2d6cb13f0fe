import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BucketHistogram } from './bucket-histogram.ts';
import { FamilyProducer } from './family-producer.ts';
import type { MetricFamily } from './metric-family.ts';

describe('family producer', () => {
  it('hands the in-process counts to an OpenTelemetry reader as cumulative sums and histograms', async () => {
    const histogram = new BucketHistogram([1]);
    histogram.record(0.5);
    histogram.record(2);
    const families: MetricFamily[] = [
      {
        kind: 'counter',
        descriptor: { name: 'switchyard.requests', description: 'Calls.', unit: '{request}' },
        points: [{ labels: { 'gen_ai.request.model': 'm' }, value: 3 }],
      },
      {
        kind: 'histogram',
        descriptor: { name: 'gen_ai.client.operation.duration', description: 'Time.', unit: 's' },
        points: [histogram.point({ 'gen_ai.request.model': 'm' })],
      },
    ];
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const provider = new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis: 3_600_000,
          metricProducers: [new FamilyProducer(() => families, emptyResource(), Date.now())],
        }),
      ],
    });
    await provider.forceFlush();
    const [metrics] = exporter.getMetrics();
    const [requests, duration] = metrics.scopeMetrics.flatMap((scope) => scope.metrics);
    assert.equal(requests.descriptor.name, 'switchyard.requests');
    assert.equal(requests.dataPointType, DataPointType.SUM);
    assert.equal(requests.aggregationTemporality, AggregationTemporality.CUMULATIVE);
    assert.equal(requests.dataPoints[0].value, 3);
    assert.deepEqual(requests.dataPoints[0].attributes, { 'gen_ai.request.model': 'm' });
    assert.equal(duration.dataPointType, DataPointType.HISTOGRAM);
    assert.deepEqual(duration.dataPoints[0].value, {
      buckets: { boundaries: [1], counts: [1, 1] },
      sum: 2.5,
      count: 2,
      min: 0.5,
      max: 2,
    });
    await provider.shutdown();
  });

  it('gives the reader nothing to export before the first call', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const provider = new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis: 3_600_000,
          metricProducers: [new FamilyProducer(() => [], emptyResource(), Date.now())],
        }),
      ],
    });
    await provider.forceFlush();
    assert.deepEqual(exporter.getMetrics(), []);
    await provider.shutdown();
  });
});
