import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BucketHistogram } from './bucket-histogram.ts';
import { prometheusName, toPrometheusText } from './prometheus-text.ts';

describe('Prometheus text', () => {
  it('names metrics the Prometheus way', () => {
    assert.equal(
      prometheusName('gen_ai.client.operation.duration', 's'),
      'gen_ai_client_operation_duration_seconds',
    );
    assert.equal(prometheusName('switchyard.requests', '{request}'), 'switchyard_requests');
  });

  it('writes counters, histograms and escaped labels', () => {
    const histogram = new BucketHistogram([1, 5]);
    histogram.record(0.5);
    histogram.record(3);
    histogram.record(9);
    const text = toPrometheusText([
      {
        kind: 'counter',
        descriptor: { name: 'calls', description: 'Calls.', unit: '' },
        points: [{ labels: { model: 'a"b\\c\nd' }, value: 2 }],
      },
      {
        kind: 'histogram',
        descriptor: { name: 'latency', description: 'Latency.', unit: 's' },
        points: [histogram.point({})],
      },
    ]);
    assert.match(text, /^# HELP calls_total Calls\.$/m);
    assert.match(text, /^# TYPE calls_total counter$/m);
    assert.ok(text.includes('calls_total{model="a\\"b\\\\c\\nd"} 2\n'), text);
    assert.match(text, /^# TYPE latency_seconds histogram$/m);
    assert.match(text, /^latency_seconds_bucket\{le="1"\} 1$/m);
    assert.match(text, /^latency_seconds_bucket\{le="5"\} 2$/m);
    assert.match(text, /^latency_seconds_bucket\{le="\+Inf"\} 3$/m);
    assert.match(text, /^latency_seconds_sum 12\.5$/m);
    assert.match(text, /^latency_seconds_count 3$/m);
  });

  it('puts le after the series labels', () => {
    const histogram = new BucketHistogram([1]);
    histogram.record(1);
    const text = toPrometheusText([
      {
        kind: 'histogram',
        descriptor: { name: 'size', description: 'Size.', unit: '{byte}' },
        points: [histogram.point({ 'gen_ai.token.type': 'input' })],
      },
    ]);
    assert.match(text, /^size_bucket\{gen_ai_token_type="input",le="1"\} 1$/m);
    assert.match(text, /^size_sum\{gen_ai_token_type="input"\} 1$/m);
  });

  it('writes nothing when no metric has a series', () => {
    assert.equal(toPrometheusText([]), '');
  });
});
