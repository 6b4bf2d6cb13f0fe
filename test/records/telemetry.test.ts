import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { attribute, OtlpReceiver, type OtlpSpan } from './otlp-receiver.ts';
import { admin, chat, connect, createDeployment, createKey, operationOf } from './support.ts';

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const PROMPT = 'tell me about the harbour at dawn, in detail please';

/** Runs a gateway exporting to a fresh receiver, makes a good and a failing call, closes (flushes). */
async function exportOf(env: Record<string, string>) {
  const receiver = await new OtlpReceiver().start();
  const fake = await new OpenAIFake().start();
  const gw = await startTestGateway({
    redis: false,
    env: { OTEL_ENABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env },
  });
  const sql = connect(gw);
  let closed = false;
  try {
    const deploymentId = await createDeployment(gw, { publicModel: 'otel-model', baseUrl: fake.baseUrl });
    const ok = `otel-${randomUUID()}`;
    const retried = `otel-${randomUUID()}`;
    const failed = `otel-${randomUUID()}`;
    const streamed = `otel-${randomUUID()}`;
    const call = (requestId: string, content?: string, stream?: boolean) =>
      chat(gw, { token: gw.masterKey, model: 'otel-model', requestId, content, stream });
    assert.equal((await call(ok, PROMPT)).status, 200);
    assert.equal((await call(streamed, PROMPT, true)).status, 200);
    fake.failNext(1, {
      status: 503,
      body: { error: { message: 'gpu node 9 on fire', type: 'server_error' } },
    });
    assert.equal((await call(retried)).status, 200, 'the retry on the second attempt succeeds');
    fake.failNext(1, {
      status: 400,
      body: { error: { message: 'gpu node 9 on fire', type: 'invalid_request_error' } },
    });
    assert.equal((await call(failed)).status, 400);
    const storedPrompt = (await operationOf(sql, ok, 'success')).prompt;
    await sql.end();
    await gw.close();
    closed = true;
    return { receiver, deploymentId, ok, retried, failed, streamed, storedPrompt };
  } finally {
    if (!closed) {
      await sql.end();
      await gw.close();
    }
    await fake.close();
    await receiver.close();
  }
}

function callSpan(spans: OtlpSpan[], requestId: string): OtlpSpan {
  const span = spans.find((s) => attribute(s.attributes, 'switchyard.request_id') === requestId);
  assert.ok(span, `a span for ${requestId}`);
  return span;
}

describe('OpenTelemetry export over OTLP/HTTP', () => {
  let result: Awaited<ReturnType<typeof exportOf>>;
  before(async () => {
    result = await exportOf({});
  });

  it('exports one span per call with GenAI attributes and a child span per attempt', () => {
    const spans = result.receiver.spans();
    const root = callSpan(spans, result.ok);
    assert.equal(root.name, 'chat otel-model');
    assert.equal(root.kind, SPAN_KIND_SERVER);
    assert.equal(attribute(root.attributes, 'gen_ai.operation.name'), 'chat');
    assert.equal(attribute(root.attributes, 'gen_ai.request.model'), 'otel-model');
    assert.equal(attribute(root.attributes, 'gen_ai.response.model'), 'gpt-4o-mini');
    assert.equal(attribute(root.attributes, 'gen_ai.provider.name'), 'openai');
    assert.ok((attribute(root.attributes, 'gen_ai.usage.input_tokens') as number) > 0);
    assert.ok((attribute(root.attributes, 'gen_ai.usage.output_tokens') as number) > 0);
    assert.equal(attribute(root.attributes, 'switchyard.deployment.id'), result.deploymentId);
    assert.equal(attribute(root.attributes, 'switchyard.status'), 'success');

    const children = spans.filter((s) => s.parentSpanId === root.spanId);
    assert.equal(children.length, 1);
    assert.equal(children[0].traceId, root.traceId);
    assert.equal(children[0].kind, SPAN_KIND_CLIENT);
    assert.equal(attribute(children[0].attributes, 'switchyard.attempt.outcome'), 'success');
    assert.equal(attribute(children[0].attributes, 'switchyard.deployment.id'), result.deploymentId);
  });

  it('marks a failed call and its attempt as errors, with the code and no provider wording', () => {
    const spans = result.receiver.spans();
    const root = callSpan(spans, result.failed);
    assert.equal(root.status?.code, 2);
    assert.equal(attribute(root.attributes, 'switchyard.status'), 'failure');
    assert.equal(typeof attribute(root.attributes, 'error.type'), 'string');
    const [attempt] = spans.filter((s) => s.parentSpanId === root.spanId);
    assert.equal(attribute(attempt.attributes, 'switchyard.attempt.outcome'), 'failure');
    assert.equal(attempt.status?.code, 2);
    assert.ok(!JSON.stringify(spans).includes('gpu node 9'), 'no payloads without OTEL_LOG_PAYLOADS');
  });

  it('gives a retried call one child span per attempt, in order', () => {
    const spans = result.receiver.spans();
    const root = callSpan(spans, result.retried);
    const attempts = spans
      .filter((s) => s.parentSpanId === root.spanId)
      .map((s) => [
        attribute(s.attributes, 'switchyard.attempt.index'),
        attribute(s.attributes, 'switchyard.attempt.outcome'),
      ])
      .sort();
    assert.deepEqual(attempts, [
      [0, 'failure'],
      [1, 'success'],
    ]);
    assert.equal(attribute(root.attributes, 'switchyard.attempts'), 2);
  });

  it('attaches no payload events by default', () => {
    const events = result.receiver.spans().flatMap((s) => s.events ?? []);
    assert.deepEqual(events, []);
    assert.ok(!JSON.stringify(result.receiver.traces).includes('harbour'));
  });

  it('exports the call metrics', () => {
    const names = result.receiver.metricNames();
    for (const name of [
      'switchyard.requests',
      'gen_ai.client.operation.duration',
      'gen_ai.client.token.usage',
      'switchyard.tokens',
      'switchyard.cost',
    ]) {
      assert.ok(names.has(name), `${name} in ${[...names].join(', ')}`);
    }
  });

  it('exports the same counts as it serves at /metrics: one per call, cumulative', () => {
    const ofModel = (name: string) =>
      result.receiver
        .lastDataPoints(name)
        .filter((point) => attribute(point.attributes, 'gen_ai.request.model') === 'otel-model');
    const byStatus = new Map<unknown, number>();
    for (const point of ofModel('switchyard.requests')) {
      const status = attribute(point.attributes, 'switchyard.status');
      byStatus.set(status, (byStatus.get(status) ?? 0) + Number(point.asDouble));
    }
    // The retried call is a success labelled with its first attempt's error.type: its own series.
    // The plain, streamed and retried calls succeed; one fails.
    assert.deepEqual(Object.fromEntries(byStatus), { success: 3, failure: 1 });
    const durations = ofModel('gen_ai.client.operation.duration');
    assert.equal(
      durations.reduce((total, point) => total + Number(point.count), 0),
      4,
    );
  });
});

describe('OTEL_LOG_PAYLOADS=true', () => {
  let result: Awaited<ReturnType<typeof exportOf>>;
  before(async () => {
    result = await exportOf({ OTEL_LOG_PAYLOADS: 'true', MAX_STRING_LENGTH_PROMPT_IN_DB: '12' });
  });

  it('attaches the full request and response as span events while the database keeps the truncated prompt', () => {
    const root = callSpan(result.receiver.spans(), result.ok);
    const events = new Map(
      (root.events ?? []).map((event) => [event.name, attribute(event.attributes, 'payload')]),
    );
    const request = JSON.parse(String(events.get('switchyard.request')));
    assert.equal(request.messages[0].content, PROMPT);
    const response = JSON.parse(String(events.get('switchyard.response')));
    assert.ok(response.answer.choices[0].message.content.length > 0);
    assert.equal(result.storedPrompt, 'user: tell m');
  });

  it('attaches a streamed answer as the one assembly of its stream, the answer a plain call gets', () => {
    const root = callSpan(result.receiver.spans(), result.streamed);
    const payload = root.events?.find((event) => event.name === 'switchyard.response');
    const response = JSON.parse(String(attribute(payload?.attributes, 'payload')));
    assert.equal(response.answer.object, 'chat.completion');
    assert.equal(response.answer.model, 'otel-model');
    assert.match(response.answer.choices[0].message.content, /harbour/);
  });

  it("attaches the provider's error payload to the failed call and attempt", () => {
    const spans = result.receiver.spans();
    const root = callSpan(spans, result.failed);
    const error = root.events?.find((event) => event.name === 'switchyard.error');
    assert.match(String(attribute(error?.attributes, 'payload')), /gpu node 9 on fire/);
    const [attempt] = spans.filter((s) => s.parentSpanId === root.spanId);
    assert.match(JSON.stringify(attempt.events), /gpu node 9 on fire/);
  });
});

describe('GET /metrics', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ redis: false });
    await createDeployment(gw, { publicModel: 'prom-model', baseUrl: fake.baseUrl });
    assert.equal((await chat(gw, { token: gw.masterKey, model: 'prom-model' })).status, 200);
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it('serves the metrics in Prometheus text format to the master key', async () => {
    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.masterKey}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^# TYPE switchyard_requests_total counter$/m);
    assert.match(text, /^switchyard_requests_total\{[^}]*gen_ai_request_model="prom-model"[^}]*\} 1$/m);
    assert.match(text, /^# TYPE gen_ai_client_operation_duration_seconds histogram$/m);
    assert.match(text, /^gen_ai_client_operation_duration_seconds_bucket\{[^}]*le="\+Inf"[^}]*\} 1$/m);
    assert.match(text, /^switchyard_tokens_total\{[^}]*gen_ai_token_type="input"[^}]*\} \d+$/m);
  });

  it('labels calls naming a model no deployment serves as one model, so junk cannot flood the series', async () => {
    const scoped = await admin<{ key: string }>(gw, 'POST', '/admin/keys', {
      name: 'flood',
      allowedModels: ['prom-model'],
    });
    const open = await createKey(gw);
    // 404 model_not_found and 403 model_not_allowed, each with a new name: on their own they
    // would take 400 of the 2,000-series budget (a fifth of it, in a few seconds of test time).
    const junk = Array.from({ length: 400 }, (_, i) => ({
      token: i % 2 === 0 ? open.key : scoped.body.key,
      model: `junk-${randomUUID()}`,
    }));
    for (let start = 0; start < junk.length; start += 50) {
      const answers = await Promise.all(junk.slice(start, start + 50).map((call) => chat(gw, call)));
      for (const answer of answers) assert.ok(answer.status === 404 || answer.status === 403, answer.text);
    }
    // A new combination of the configured model after the flood still gets its own series.
    fake.failNext(1, { status: 400, body: { error: { message: 'nope', type: 'invalid_request_error' } } });
    assert.equal((await chat(gw, { token: gw.masterKey, model: 'prom-model' })).status, 400);

    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.masterKey}` } });
    const requests = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('switchyard_requests_total{'));
    const models = new Set(requests.map((line) => /gen_ai_request_model="([^"]*)"/.exec(line)?.[1]));
    assert.deepEqual([...models].sort(), ['(unconfigured)', 'prom-model']);
    assert.ok(requests.length <= 4, requests.join('\n'));
    const counted = (pattern: RegExp) =>
      requests
        .filter((line) => pattern.test(line))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    assert.equal(counted(/gen_ai_request_model="\(unconfigured\)"/), junk.length);
    assert.match(
      requests.join('\n'),
      /gen_ai_request_model="prom-model"[^}]*error_type="[a-z_]+"[^}]*\} 1$/m,
    );
  });

  it('refuses a virtual key, a key by x-api-key and no key', async () => {
    const key = await createKey(gw);
    for (const headers of [
      { authorization: `Bearer ${key.key}` },
      { 'x-api-key': gw.masterKey },
      {} as Record<string, string>,
    ]) {
      const res = await fetch(`${gw.url}/metrics`, { headers });
      assert.equal(res.status, 401);
    }
  });
});

describe('access line', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ redis: false });
  });
  after(async () => {
    await gw.close();
  });

  it('writes one line per request with the request id the answer carries', async () => {
    const requestId = `access-${randomUUID()}`;
    const res = await fetch(`${gw.url}/metrics`, {
      headers: { authorization: `Bearer ${gw.masterKey}`, 'x-request-id': requestId },
    });
    assert.equal(res.headers.get('x-request-id'), requestId);
    await res.text();
    // The line is written after the answer is sent.
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && line === undefined; i += 1) {
      line = gw.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === requestId);
      if (line === undefined) await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(line, 'an access line with the request id');
    assert.equal(line.msg, 'request completed');
    assert.equal(line.method, 'GET');
    assert.equal(line.url, '/metrics');
    assert.equal(line.status, 200);
    assert.equal(typeof line.ms, 'number');
  });
});
