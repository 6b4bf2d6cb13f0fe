import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ROUTER_KEYS, UNLIMITED } from '../../src/router/router-keys.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { chat, createDeployment, eventually, modelName, putRouterSettings } from './support.ts';

describe('routing strategies', () => {
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

  it('weighted: splits 400 calls 3:1 by weight, within a binomial bound', async () => {
    const model = modelName('weighted');
    const heavy = await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl, weight: 3 });
    const light = await createDeployment(gw, { publicModel: model, baseUrl: second.baseUrl, weight: 1 });
    await putRouterSettings(gw, { strategy: 'weighted' });
    const counts = new Map<string | null, number>();
    for (let i = 0; i < 400; i += 8) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => chat(gw, model)));
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        const served = answer.headers.get('x-switchyard-deployment');
        counts.set(served, (counts.get(served) ?? 0) + 1);
      }
    }
    // Binomial(400, 0.75): mean 300, standard deviation about 8.7; five deviations either way.
    const heavyCalls = counts.get(heavy) ?? 0;
    assert.ok(Math.abs(heavyCalls - 300) <= 44, `heavy served ${heavyCalls} of 400`);
    assert.equal(heavyCalls + (counts.get(light) ?? 0), 400);
    assert.equal(first.requests.length, heavyCalls);
  });

  it('least-busy: sends calls to the idle deployment while a stream holds the other, and releases it at the stream end', async () => {
    const model = modelName('least-busy');
    const ids = [
      await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl }),
      await createDeployment(gw, { publicModel: model, baseUrl: second.baseUrl }),
    ];
    // The client's abort ends the stream at once: no reading on to bill its usage (issue 19's drain).
    await putRouterSettings(gw, { strategy: 'least-busy', timeouts: { drainAfterClientLeftMs: 0 } });
    first.eventDelayMs = 10_000;
    second.eventDelayMs = 10_000;
    const controller = new AbortController();
    const held = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hold on' }] }),
    });
    assert.equal(held.status, 200);
    const busy = held.headers.get('x-switchyard-deployment');
    const idle = ids.find((id) => id !== busy);
    assert.ok(busy !== null && idle !== undefined);
    const reader = held.body!.getReader();
    await reader.read();

    for (let i = 0; i < 10; i++) {
      const answer = await chat(gw, model);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('x-switchyard-deployment'), idle, `call ${i}`);
    }

    const cache = gw.gateway.runtime.cache;
    const inFlight = async (id: string) =>
      (await cache.windowState(ROUTER_KEYS.inFlight(id), UNLIMITED, 660_000)).used;
    assert.equal(await inFlight(busy), 1);
    controller.abort();
    await reader.cancel().catch(() => {});
    await eventually(async () => assert.equal(await inFlight(busy), 0));
    assert.equal(await inFlight(idle), 0);
  });

  it('lowest-latency: measures each deployment, then prefers the fast one', async () => {
    const model = modelName('latency');
    await createDeployment(gw, { publicModel: model, baseUrl: first.baseUrl });
    const fast = await createDeployment(gw, { publicModel: model, baseUrl: second.baseUrl });
    await putRouterSettings(gw, { strategy: 'lowest-latency' });
    first.latencyMs = 150;
    const served: (string | null)[] = [];
    for (let i = 0; i < 12; i++) served.push((await chat(gw, model)).headers.get('x-switchyard-deployment'));
    assert.ok(first.requests.length >= 1, 'the slow deployment was measured once');
    assert.deepEqual(served.slice(-5), Array(5).fill(fast));
  });
});
