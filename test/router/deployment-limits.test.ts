import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROUTER_KEYS } from '../../src/router/router-keys.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  chat,
  createDeployment,
  errorCode,
  eventually,
  modelName,
  putRouterSettings,
  upstreamError,
} from './support.ts';

describe("a deployment's own rpmLimit", () => {
  let gw: TestGateway;
  let limited: OpenAIFake;
  let spare: OpenAIFake;
  before(async () => {
    limited = await new OpenAIFake().start();
    spare = await new OpenAIFake().start();
    gw = await startTestGateway();
    await putRouterSettings(gw, {});
  });
  after(async () => {
    await gw.close();
    await limited.close();
    await spare.close();
  });

  it('passes over a deployment at its limit while another serves', async () => {
    const model = modelName('rpm');
    await createDeployment(gw, { publicModel: model, baseUrl: limited.baseUrl, rpmLimit: 2, weight: 1000 });
    const spareId = await createDeployment(gw, { publicModel: model, baseUrl: spare.baseUrl, weight: 1 });
    const served: (string | null)[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await chat(gw, model);
      assert.equal(answer.status, 200);
      served.push(answer.headers.get('x-switchyard-deployment'));
    }
    assert.equal(limited.requests.length, 2);
    assert.deepEqual(served.slice(-3), [spareId, spareId, spareId]);
  });

  it('answers 429 rate_limit_exceeded with Retry-After when the whole pool is at its limits', async () => {
    const model = modelName('rpm-alone');
    await createDeployment(gw, { publicModel: model, baseUrl: limited.baseUrl, rpmLimit: 1 });
    assert.equal((await chat(gw, model)).status, 200);
    const refused = await chat(gw, model);
    assert.equal(refused.status, 429);
    assert.equal(errorCode(refused), 'rate_limit_exceeded');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 55 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  });
});

describe("a deployment's own tpmLimit", () => {
  let gw: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await putRouterSettings(gw, {});
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it('reserves the estimate, keeps the usage once the call ends, and refuses what no longer fits', async () => {
    const model = modelName('tpm');
    const id = await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl, tpmLimit: 40 });
    const answer = await chat(gw, model);
    assert.equal(answer.status, 200);
    const usage = answer.body.usage as { total_tokens: number };
    const window = () => gw.gateway.runtime.cache.windowState(ROUTER_KEYS.tpm(id), 40, 60_000);
    await eventually(async () => assert.equal((await window()).used, usage.total_tokens));
    // Without max_tokens a call reserves up to the whole limit: it no longer fits this minute.
    const refused = await chat(gw, model);
    assert.equal(refused.status, 429);
    assert.equal(errorCode(refused), 'rate_limit_exceeded');
  });
});

describe('routing on the embedded default (in-process cache store)', () => {
  let gw: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ storage: 'embedded', redis: false, env: { DB_POOL_MAX: '1' } });
    await putRouterSettings(gw, { cooldown: { failureThreshold: 1, windowMs: 60_000, durationMs: 60_000 } });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it('cools a deployment and falls back', async () => {
    const model = modelName('embedded');
    const fallback = modelName('embedded-fallback');
    await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl });
    await createDeployment(gw, { publicModel: fallback, baseUrl: fake.baseUrl });
    fake.enqueue({ status: 500, body: upstreamError(null) });
    assert.equal((await chat(gw, model)).status, 502);
    const cooling = await chat(gw, model);
    assert.equal(errorCode(cooling), 'deployments_in_cooldown');
    assert.equal(cooling.headers.get('retry-after'), '60');

    await putRouterSettings(gw, {
      cooldown: { failureThreshold: 1, windowMs: 60_000, durationMs: 60_000 },
      fallbacks: { general: { [model]: [fallback] } },
    });
    const answer = await chat(gw, model);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-switchyard-fallback-model'), fallback);
  });
});
