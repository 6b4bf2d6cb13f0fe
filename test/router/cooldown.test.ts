import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  admin,
  chat,
  createDeployment,
  errorCode,
  eventually,
  modelName,
  putRouterSettings,
  sharedEnv,
  upstreamError,
} from './support.ts';

const COOLDOWN = { failureThreshold: 2, windowMs: 60_000, durationMs: 1_500 };
const BROKEN = { status: 500, body: upstreamError(null) };

describe('cooldown', () => {
  let gw: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await putRouterSettings(gw, { cooldown: COOLDOWN });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it('cools a failing deployment, answers 429 deployments_in_cooldown with Retry-After, then lets it back', async () => {
    const model = modelName('cool');
    const deploymentId = await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl });
    fake.reset();
    fake.failNext(2, BROKEN);
    for (let i = 0; i < 2; i++) {
      const failed = await chat(gw, model);
      assert.equal(failed.status, 502);
      assert.equal(errorCode(failed), 'upstream_error');
      assert.equal(failed.headers.get('x-switchyard-attempts'), '1');
    }

    const cooling = await chat(gw, model);
    assert.equal(cooling.status, 429);
    assert.equal(errorCode(cooling), 'deployments_in_cooldown');
    assert.equal(cooling.headers.get('retry-after'), '2', 'the cooldown of 1.5 s, rounded up');
    assert.equal(cooling.headers.get('x-switchyard-attempts'), '0');
    assert.equal(fake.requests.length, 2, 'a cooling deployment is not called');
    const metrics = await fetch(`${gw.url}/metrics`, {
      headers: { authorization: `Bearer ${gw.masterKey}` },
    });
    assert.match(
      await metrics.text(),
      new RegExp(
        `^switchyard_router_cooldowns_total\\{[^}]*switchyard_deployment_id="${deploymentId}"[^}]*\\} 1$`,
        'm',
      ),
      'the cooldown is counted once',
    );

    await new Promise((resolve) => setTimeout(resolve, COOLDOWN.durationMs + 50));
    const back = await chat(gw, model);
    assert.equal(back.status, 200);
    assert.equal(back.headers.get('x-switchyard-deployment'), deploymentId);
    assert.equal(fake.requests.length, 3);
  });

  it('lists a cooling deployment at GET /admin/deployments/cooldowns until it is back', async () => {
    const model = modelName('listed');
    const cooling = await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl });
    const other = await createDeployment(gw, { publicModel: modelName('other'), baseUrl: fake.baseUrl });
    fake.reset();
    fake.failNext(2, BROKEN);
    for (let i = 0; i < 2; i++) assert.equal((await chat(gw, model)).status, 502);
    const { data } = await admin<{
      data: { deploymentId: string; publicModel: string; remainingMs: number }[];
    }>(gw, 'GET', '/deployments/cooldowns');
    const listed = data.find((entry) => entry.deploymentId === cooling);
    assert.ok(listed, 'the cooling deployment is listed');
    assert.equal(listed.publicModel, model);
    assert.ok(
      listed.remainingMs > 0 && listed.remainingMs <= COOLDOWN.durationMs,
      String(listed.remainingMs),
    );
    assert.ok(!data.some((entry) => entry.deploymentId === other), 'a deployment in its pool is not');
    await eventually(async () => {
      const later = await admin<{ data: { deploymentId: string }[] }>(gw, 'GET', '/deployments/cooldowns');
      assert.ok(!later.data.some((entry) => entry.deploymentId === cooling), 'back in its pool');
    });
  });

  it('skips the cooling deployment of a pool while another serves', async () => {
    const model = modelName('pool');
    const brokenFake = await new OpenAIFake().start();
    try {
      const broken = await createDeployment(gw, {
        publicModel: model,
        baseUrl: brokenFake.baseUrl,
        weight: 1000,
      });
      const healthy = await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl, weight: 1 });
      brokenFake.failNext(100, BROKEN);
      // The weight sends (nearly) every call to the broken deployment until it cools.
      let failures = 0;
      for (let i = 0; i < 20 && failures < 2; i++) {
        const answer = await chat(gw, model);
        if (answer.status !== 200) failures++;
      }
      assert.equal(failures, 2);
      const callsBefore = brokenFake.requests.length;
      for (let i = 0; i < 5; i++) {
        const answer = await chat(gw, model);
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('x-switchyard-deployment'), healthy);
      }
      assert.equal(brokenFake.requests.length, callsBefore, `${broken} is skipped while cooling`);
    } finally {
      await brokenFake.close();
    }
  });

  it("never cools a deployment for a client's own bad request", async () => {
    const model = modelName('client-error');
    await createDeployment(gw, { publicModel: model, baseUrl: fake.baseUrl });
    fake.reset();
    fake.failNext(3, { status: 400, body: upstreamError('invalid_value', 'invalid_request_error') });
    for (let i = 0; i < 3; i++) assert.equal((await chat(gw, model)).status, 400);
    assert.equal((await chat(gw, model)).status, 200);
  });
});

describe('cooldown shared by two gateway processes', () => {
  let first: TestGateway;
  let second: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    fake = await new OpenAIFake().start();
    first = await startTestGateway();
    second = await startTestGateway({ database: first.database, env: sharedEnv(first) });
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await fake?.close();
  });

  it('a deployment cooled by traffic on one replica is skipped by the other', async () => {
    await putRouterSettings(first, { cooldown: { ...COOLDOWN, durationMs: 30_000 } });
    await eventually(async () => {
      const seen = await admin<{ cooldown: { durationMs: number } }>(second, 'GET', '/router-settings');
      assert.equal(seen.cooldown.durationMs, 30_000);
    });
    const model = modelName('shared');
    const brokenFake = await new OpenAIFake().start();
    try {
      const broken = await createDeployment(first, { publicModel: model, baseUrl: brokenFake.baseUrl });
      await eventually(async () => assert.notEqual((await chat(second, model)).status, 404));
      brokenFake.reset();
      brokenFake.failNext(2, BROKEN);
      for (let i = 0; i < 2; i++) assert.equal((await chat(first, model)).status, 502);

      const onSecond = await chat(second, model);
      assert.equal(onSecond.status, 429);
      assert.equal(errorCode(onSecond), 'deployments_in_cooldown');
      assert.equal(brokenFake.requests.length, 2, `${broken} was not called by the second replica`);

      const healthy = await createDeployment(first, { publicModel: model, baseUrl: fake.baseUrl });
      await eventually(async () => {
        const answer = await chat(second, model);
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('x-switchyard-deployment'), healthy);
      });
      assert.equal(brokenFake.requests.length, 2);
    } finally {
      await brokenFake.close();
    }
  });
});
