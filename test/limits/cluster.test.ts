import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startRedisCluster, type TestRedisCluster } from '../helpers/redis-cluster.ts';
import { client, createDeployment, createKey, hi, waitUntil } from './support.ts';

/** The longest a call may take while a master fails over: the store gives up on a command after about a second. */
const BOUND_MS = 5_000;

describe('the gateway on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let cluster: TestRedisCluster;
  let fake: OpenAIFake;
  let gw: TestGateway;
  before(async () => {
    cluster = await startRedisCluster();
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ redis: false, env: { REDIS_CLUSTER_NODES: cluster.seeds } });
    await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
    await cluster?.close();
  });

  it('is ready, and a key and its limits work', async () => {
    const ready = await fetch(`${gw.url}/health/ready`);
    assert.equal(ready.status, 200, await ready.text());
    await assertRpmOfTwoHolds(gw);
  });

  it('while the master of a key fails over, calls are served or get 503 without hanging; limits hold after', async () => {
    const key = await createKey(gw, { rpmLimit: 100_000, budgetCents: 100_000 });
    const openai = client(gw, key.key);
    const outcomes = new Map<number, number>();
    let slowestMs = 0;
    let stop = false;
    const caller = async () => {
      while (!stop) {
        const started = performance.now();
        const status = await openai.chat.completions.create(hi('chat')).then(
          () => 200,
          (error: unknown) => (error instanceof OpenAI.APIError ? error.status : -1),
        );
        slowestMs = Math.max(slowestMs, performance.now() - started);
        outcomes.set(status, (outcomes.get(status) ?? 0) + 1);
        if (status !== 200) await sleep(50);
      }
    };
    const callers = Array.from({ length: 4 }, caller);
    try {
      await sleep(300);
      await cluster.failOver(`{${key.id}}`);
      await waitUntil(
        async () => (await fetch(`${gw.url}/health/ready`)).status === 200,
        'ready again',
        20_000,
      );
      await sleep(300);
    } finally {
      stop = true;
      await Promise.all(callers);
    }
    const statuses = [...outcomes.keys()].sort();
    assert.ok(
      statuses.every((status) => status === 200 || status === 503),
      `only 200 and 503: ${JSON.stringify([...outcomes])}`,
    );
    assert.ok((outcomes.get(200) ?? 0) > 0);
    assert.ok(slowestMs < BOUND_MS, `slowest call ${Math.round(slowestMs)} ms`);

    await assertRpmOfTwoHolds(gw);
    process.stdout.write(
      `# gateway failover: ${JSON.stringify([...outcomes])}, slowest ${Math.round(slowestMs)} ms\n`,
    );
  });
});

/** A new key with an RPM of 2 gets two calls, and 429 for the third. */
async function assertRpmOfTwoHolds(gw: TestGateway): Promise<void> {
  const key = await createKey(gw, { rpmLimit: 2 });
  const openai = client(gw, key.key);
  await openai.chat.completions.create(hi('chat'));
  await openai.chat.completions.create(hi('chat'));
  await assert.rejects(openai.chat.completions.create(hi('chat')), (error: unknown) => {
    return error instanceof OpenAI.APIError && error.status === 429;
  });
}
