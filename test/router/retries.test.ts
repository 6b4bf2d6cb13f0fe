import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { waitUntil } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { connectSql } from '../helpers/sql.ts';
import {
  chat,
  createDeployment,
  errorCode,
  modelName,
  putRouterSettings,
  requestTimes,
  upstreamError,
} from './support.ts';

const RATE_LIMITED = (retryAfter: string) => ({
  status: 429,
  body: upstreamError('rate_limit_exceeded', 'requests'),
  headers: { 'retry-after': retryAfter },
});

describe('retries and timeouts', () => {
  let gw: TestGateway;
  let first: OpenAIFake;
  let second: OpenAIFake;
  before(async () => {
    first = await new OpenAIFake().start();
    second = await new OpenAIFake().start();
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
    await first.close();
    await second.close();
  });
  beforeEach(() => {
    first.reset();
    second.reset();
  });

  it("waits for the upstream's Retry-After before retrying the same deployment", async () => {
    const model = modelName('retry-after');
    await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl });
    await putRouterSettings(gw, { retries: { maxAttempts: 2, backoffMs: 0 } });
    const times = requestTimes(first);
    first.enqueue(RATE_LIMITED('1'));
    const answer = await chat(gw, model);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-switchyard-attempts'), '2');
    assert.equal(times.length, 2);
    const delayMs = times[1] - times[0];
    assert.ok(delayMs >= 990, `retried after ${delayMs} ms, before the 1 s the upstream asked for`);
    assert.ok(delayMs < 2_500, `retried after ${delayMs} ms`);
  });

  it('waits the backoff between retries', async () => {
    const model = modelName('backoff');
    await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl });
    await putRouterSettings(gw, { retries: { maxAttempts: 3, backoffMs: 300 } });
    const times = requestTimes(first);
    first.failNext(2, { status: 502, body: upstreamError(null) });
    const answer = await chat(gw, model);
    assert.equal(answer.status, 200);
    assert.equal(times.length, 3);
    for (const gap of [times[1] - times[0], times[2] - times[1]]) assert.ok(gap >= 290, `gap ${gap} ms`);
  });

  it('a call retried to success keeps no error_code; its failed attempt keeps its own (issue 30)', async () => {
    const model = modelName('retried-success');
    await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl });
    await putRouterSettings(gw, { retries: { maxAttempts: 2, backoffMs: 0 } });
    first.failNext(1, { status: 502, body: upstreamError(null) });
    const answer = await chat(gw, model);
    assert.equal(answer.status, 200);
    const requestId = answer.headers.get('x-request-id') ?? '';
    const sql = connectSql(gw.database?.url ?? '', 1);
    try {
      await waitUntil(async () => {
        const [row] = await sql<{ status: string }>`
          select status from gateway_operations where request_id = ${requestId}`;
        return row?.status === 'success';
      }, 'the record written');
      const [operation] = await sql<{ error_code: string | null; error_class: string | null }>`
        select error_code, error_class from gateway_operations where request_id = ${requestId}`;
      assert.deepEqual(operation, { error_code: null, error_class: null });
      const attempts = await sql<{ error_code: string | null }>`
        select error_code from upstream_attempts
         where request_id = ${requestId} order by attempt_index`;
      assert.equal(attempts.length, 2);
      assert.notEqual(attempts[0].error_code, null, 'the failed attempt keeps its error');
      assert.equal(attempts[1].error_code, null);
    } finally {
      await sql.end();
    }
  });

  it('retries on a deployment not tried yet', async () => {
    const model = modelName('spread');
    await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl });
    await createDeployment(gw, { publicModel: model, baseUrl: second.baseUrl });
    await putRouterSettings(gw, { retries: { maxAttempts: 3, backoffMs: 0 } });
    first.failNext(1, { status: 500, body: upstreamError(null) });
    second.failNext(1, { status: 500, body: upstreamError(null) });
    const answer = await chat(gw, model);
    assert.equal(answer.status, 200);
    // Had the retry gone back to the deployment that failed, its second request would have served.
    assert.equal(answer.headers.get('x-switchyard-attempts'), '3');
    assert.equal(first.requests.length + second.requests.length, 3);
    assert.ok(first.requests.length >= 1 && second.requests.length >= 1);
  });

  it('does not wait for a Retry-After longer than a retry may wait, and passes it on', async () => {
    const model = modelName('too-long');
    await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl });
    await createDeployment(gw, { publicModel: model, baseUrl: second.baseUrl });
    await putRouterSettings(gw, { retries: { maxAttempts: 3, backoffMs: 0 } });
    first.enqueue(RATE_LIMITED('120'));
    second.enqueue(RATE_LIMITED('120'));
    const answer = await chat(gw, model);
    assert.equal(answer.status, 429);
    assert.equal(errorCode(answer), 'rate_limit_exceeded');
    assert.equal(answer.headers.get('retry-after'), '120');
    assert.equal(answer.headers.get('x-switchyard-attempts'), '2');
    assert.ok(answer.elapsedMs < 1_000, `answered after ${answer.elapsedMs} ms`);
  });

  it('times out an upstream slower than firstByteMs, and retries elsewhere', async () => {
    const model = modelName('slow');
    await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl, weight: 1 });
    await putRouterSettings(gw, {
      retries: { maxAttempts: 1, backoffMs: 0 },
      timeouts: { connectMs: 1_000, firstByteMs: 300, totalMs: 5_000 },
    });
    first.latencyMs = 4_000;
    const slow = await chat(gw, model);
    assert.equal(slow.status, 504);
    assert.equal(errorCode(slow), 'timeout');
    // undici checks its connect, header and body timeouts on a coarse clock (about a second).
    assert.ok(slow.elapsedMs < 2_500, `answered after ${slow.elapsedMs} ms`);

    await createDeployment(gw, { publicModel: model, baseUrl: second.baseUrl });
    await putRouterSettings(gw, {
      retries: { maxAttempts: 2, backoffMs: 0 },
      timeouts: { connectMs: 1_000, firstByteMs: 300, totalMs: 5_000 },
    });
    for (let i = 0; i < 3; i++) {
      const answer = await chat(gw, model);
      assert.equal(answer.status, 200);
    }
  });

  it('ends the attempt at totalMs, a stream included', async () => {
    const model = modelName('total');
    await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl });
    await putRouterSettings(gw, {
      retries: { maxAttempts: 1, backoffMs: 0 },
      timeouts: { connectMs: 1_000, firstByteMs: 300, totalMs: 400 },
    });
    first.eventDelayMs = 150;
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'one two three four five six seven eight' }],
      }),
    });
    assert.equal(response.status, 200);
    const text = await response.text();
    assert.match(text, /"code":"timeout"/);
    assert.doesNotMatch(text, /\[DONE\]/);
  });
});
