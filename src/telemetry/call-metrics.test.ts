import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CallSummary } from '../records/call-summary.ts';
import { CallMetrics } from './call-metrics.ts';
import type { CounterPoint, HistogramPoint, MetricFamily } from './metric-family.ts';
import { MAX_SERIES, OVERFLOW_LABELS } from './series-index.ts';

function call(overrides: Partial<CallSummary> = {}): CallSummary {
  return {
    requestId: 'req-1',
    operation: 'chat.completions',
    keyId: null,
    publicModel: 'gpt-4o',
    deploymentId: 'dep-1',
    provider: 'openai',
    upstreamModel: 'gpt-4o-2024-08-06',
    stream: false,
    startedAtMs: 1_000,
    finishedAtMs: 1_150,
    httpStatus: 200,
    status: 'success',
    error: null,
    inputTokens: 10,
    outputTokens: 20,
    cachedInputTokens: null,
    costCents: 0.5,
    cache: null,
    attempts: [],
    tags: [],
    extensions: [],
    teamId: null,
    contentFilter: null,
    ...overrides,
  };
}

function family(families: MetricFamily[], name: string): MetricFamily {
  const found = families.find((f) => f.descriptor.name === name);
  assert.ok(found, `${name} in ${families.map((f) => f.descriptor.name).join(', ')}`);
  return found;
}

describe('call metrics', () => {
  it('counts calls per label combination, with the same label object every time', () => {
    const metrics = new CallMetrics();
    metrics.record(call());
    metrics.record(call({ requestId: 'req-2' }));
    metrics.record(call({ publicModel: 'other' }));
    const points = family(metrics.families(), 'switchyard.requests').points as CounterPoint[];
    assert.deepEqual(
      points.map((p) => [p.labels['gen_ai.request.model'], p.value]),
      [
        ['gpt-4o', 2],
        ['other', 1],
      ],
    );
    const again = family(metrics.families(), 'switchyard.requests').points[0];
    assert.equal(again.labels, points[0].labels, 'the label object is built once per combination');
    assert.deepEqual(points[0].labels, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.provider.name': 'openai',
      'switchyard.operation': 'chat.completions',
      'switchyard.status': 'success',
    });
  });

  it('labels a failed call with its error code and no provider as none', () => {
    const metrics = new CallMetrics();
    const error = new GatewayError('rate_limit_exceeded');
    metrics.record(call({ provider: null, status: 'failure', error, inputTokens: 0, outputTokens: 0 }));
    const [point] = family(metrics.families(), 'switchyard.requests').points as CounterPoint[];
    assert.equal(point.labels['error.type'], 'rate_limit_exceeded');
    assert.equal(point.labels['gen_ai.provider.name'], 'none');
  });

  it('keeps response cache hits, misses and calls without the cache apart, labelled switchyard.cache', () => {
    const metrics = new CallMetrics();
    metrics.record(call({ cache: 'miss' }));
    metrics.record(call({ cache: 'hit', provider: null }));
    metrics.record(call({ cache: 'hit', provider: null }));
    metrics.record(call());
    const points = family(metrics.families(), 'switchyard.requests').points as CounterPoint[];
    assert.deepEqual(
      points.map((p) => [p.labels['switchyard.cache'], p.labels['gen_ai.provider.name'], p.value]),
      [
        ['miss', 'openai', 1],
        ['hit', 'none', 2],
        [undefined, 'openai', 1],
      ],
    );
  });

  it('keeps a success and a failure with the same model apart', () => {
    const metrics = new CallMetrics();
    metrics.record(call());
    metrics.record(call({ status: 'failure', error: new GatewayError('upstream_error') }));
    assert.equal(family(metrics.families(), 'switchyard.requests').points.length, 2);
  });

  it('records the duration in seconds and tokens by type', () => {
    const metrics = new CallMetrics();
    metrics.record(call());
    const families = metrics.families();
    const [duration] = family(families, 'gen_ai.client.operation.duration').points as HistogramPoint[];
    assert.equal(duration.count, 1);
    assert.equal(duration.sum, 0.15);
    const tokens = family(families, 'switchyard.tokens').points as CounterPoint[];
    assert.deepEqual(
      tokens.map((p) => [p.labels['gen_ai.token.type'], p.value]),
      [
        ['input', 10],
        ['output', 20],
      ],
    );
    assert.equal((family(families, 'switchyard.cost').points[0] as CounterPoint).value, 0.5);
  });

  it('lists no token or cost series for calls without usage or price', () => {
    const metrics = new CallMetrics();
    metrics.record(call({ inputTokens: 0, outputTokens: 0, costCents: 0 }));
    assert.deepEqual(
      metrics.families().map((f) => f.descriptor.name),
      ['switchyard.requests', 'gen_ai.client.operation.duration'],
    );
  });

  it('caps the series a client can create with model names at the SDK limit', () => {
    const metrics = new CallMetrics();
    for (let i = 0; i < MAX_SERIES + 10; i += 1) metrics.record(call({ publicModel: `model-${i}` }));
    const points = family(metrics.families(), 'switchyard.requests').points as CounterPoint[];
    assert.equal(points.length, MAX_SERIES);
    assert.deepEqual(points.at(-1), { labels: OVERFLOW_LABELS, value: 11 });
  });

  it('lists nothing before the first call', () => {
    assert.deepEqual(new CallMetrics().families(), []);
  });
});
