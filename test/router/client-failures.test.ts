import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { admin, chat, createDeployment, modelName, putRouterSettings, upstreamError } from './support.ts';

/**
 * Issue 30 finding 11: one key holder's failing calls put a deployment in cooldown for every
 * tenant. Only upstream-side failures may cool a deployment (SPEC.md, States and transitions):
 * a client's bad requests the upstream refuses, and clients that leave mid-call (a stream read on
 * for `drainAfterClientLeftMs`, then cut; a JSON call abandoned), must leave it in its pool.
 */

/** Two failures cool a deployment, so a single counted client failure more than the first shows. */
const COOLDOWN = { failureThreshold: 2, windowMs: 60_000, durationMs: 30_000 };
const CALLS = 4;

async function cooling(gw: TestGateway): Promise<string[]> {
  const { data } = await admin<{ data: { deploymentId: string }[] }>(gw, 'GET', '/deployments/cooldowns');
  return data.map((entry) => entry.deploymentId);
}

/** Starts a call and leaves once it has been `afterMs` in flight (a stream: after its first bytes). */
async function leave(gw: TestGateway, model: string, stream: boolean, afterMs: number): Promise<void> {
  const controller = new AbortController();
  const response = fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      stream,
      messages: [{ role: 'user', content: 'one two three four five six' }],
    }),
    signal: controller.signal,
  });
  if (stream) await (await response).body?.getReader().read();
  await sleep(afterMs);
  controller.abort();
  await response.catch(() => undefined);
}

describe('client-side failures never cool a deployment', () => {
  let gw: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await putRouterSettings(gw, { cooldown: COOLDOWN, timeouts: { drainAfterClientLeftMs: 200 } });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it("a key holder's own bad requests, refused by the upstream (400, 413, 422), leave the deployment in its pool", async () => {
    const model = modelName('bad');
    const deployment = await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl });
    fake.reset();
    for (const status of [400, 413, 422, 400]) {
      fake.enqueue({ status, body: upstreamError('invalid_value', 'invalid_request_error') });
    }
    for (let i = 0; i < CALLS; i++) {
      const refused = await chat(gw, model);
      assert.ok(refused.status >= 400 && refused.status < 500, `a client error, got ${refused.status}`);
    }
    assert.ok(!(await cooling(gw)).includes(deployment), 'not cooling');
    assert.equal((await chat(gw, model)).status, 200, "another tenant's call is served");
  });

  it('clients that leave streams mid-answer leave the deployment in its pool once the drain is cut', async () => {
    const model = modelName('left-stream');
    const deployment = await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl });
    fake.reset();
    fake.eventDelayMs = 300;
    try {
      for (let i = 0; i < CALLS; i++) await leave(gw, model, true, 50);
      // The upstream is read on for drainAfterClientLeftMs (200 ms), then cut: the cut is not its failure.
      await fake.waitForAbort(CALLS);
      await sleep(500);
    } finally {
      fake.eventDelayMs = 0;
    }
    assert.ok(!(await cooling(gw)).includes(deployment), 'not cooling');
    assert.equal((await chat(gw, model)).status, 200);
  });

  it('clients that abandon JSON calls leave the deployment in its pool', async () => {
    const model = modelName('left-json');
    const deployment = await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl });
    fake.reset();
    fake.latencyMs = 1_000;
    try {
      for (let i = 0; i < CALLS; i++) await leave(gw, model, false, 100);
      await fake.waitForAbort(CALLS);
      await sleep(500);
    } finally {
      fake.latencyMs = 0;
    }
    assert.ok(!(await cooling(gw)).includes(deployment), 'not cooling');
    assert.equal((await chat(gw, model)).status, 200);
  });
});
