import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import type { CacheStore } from '../cache/cache-store.ts';
import { MemoryCacheStore } from '../cache/memory-cache-store.ts';
import { candidatePools } from '../deployments/candidate-pools.ts';
import type { Deployment } from '../deployments/deployment.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { testCallContext } from '../pipeline/test-support.ts';
import type { UpstreamClient, UpstreamResponse } from '../upstream/upstream-client.ts';
import { Router } from './router.ts';
import { type RouterSettings, routerSettingsSchema } from './router-settings-schema.ts';

/**
 * What the router's bookkeeping costs in cache-store operations (each a Redis command in
 * production; issue 8, the performance budget): the store is wrapped in a proxy that names every
 * operation called, and the upstream is a stub, so nothing else touches it.
 */

const COMPLETION = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
};

const FAILURE = { error: { message: 'down', type: 'server_error', param: null, code: null } };

function answer(status: number, body: unknown): UpstreamResponse {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: Readable.from([Buffer.from(JSON.stringify(body))]),
  };
}

/** The store, naming each operation called on it in `operations`. */
function counted(store: CacheStore): { cache: CacheStore; operations: string[] } {
  const operations: string[] = [];
  const cache = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        operations.push(String(property));
        return value.apply(target, args);
      };
    },
  });
  return { cache, operations };
}

let sequence = 0;

function deployment(fields: Partial<Deployment> = {}): Deployment {
  sequence++;
  return {
    id: `dep_${sequence}`,
    publicModel: 'm',
    provider: 'openai',
    upstreamModel: 'gpt-4o-mini',
    apiKeyEnvelope: null,
    baseUrl: null,
    enabled: true,
    weight: 1,
    rpmLimit: null,
    tpmLimit: null,
    pricing: null,
    profile: null,
    providerOptions: {},
    ...fields,
  };
}

function context(): CallContext {
  return testCallContext({ body: { model: 'm', messages: [{ role: 'user', content: 'hello' }] } });
}

const stores: MemoryCacheStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** A router on a counted memory store; `upstream.failing` makes the stub answer 500. */
async function setup(strategy: RouterSettings['strategy'], pool: Deployment[]) {
  const store = new MemoryCacheStore();
  stores.push(store);
  const { cache, operations } = counted(store);
  const upstream = { failing: false };
  const client = {
    send: async () => (upstream.failing ? answer(500, FAILURE) : answer(200, COMPLETION)),
    maxAnswerBytes: 1024 * 1024,
  } as unknown as UpstreamClient;
  const settings = routerSettingsSchema.parse({
    strategy,
    retries: { maxAttempts: 1, backoffMs: 0 },
    cooldown: { failureThreshold: 2, windowMs: 60_000, durationMs: 30_000 },
  });
  const router = new Router({
    directory: {
      poolOf: candidatePools((model) => pool.filter((d) => d.publicModel === model)),
      targetOf: (d) => ({
        id: d.id,
        provider: d.provider,
        upstreamModel: d.upstreamModel,
        apiKey: 'sk-test',
        baseUrl: null,
        providerOptions: {},
      }),
    },
    client,
    cache,
    settings: { current: () => settings },
  });
  await settle();
  assert.deepEqual(operations.splice(0), ['subscribe'], 'the router listens to cooldowns from the start');

  /** One call; answers the operations it made, the background writes included. */
  const call = async (): Promise<{ operations: string[]; error: GatewayError | null }> => {
    operations.length = 0;
    let error: GatewayError | null = null;
    try {
      await router.route(context());
    } catch (thrown) {
      assert.ok(thrown instanceof GatewayError, String(thrown));
      error = thrown;
    }
    await settle();
    return { operations: operations.splice(0), error };
  };
  /**
   * Calls until each deployment's cooldown has been read: once per replica, the first time a pick
   * considers it (`weighted` draws one member per call; the other strategies read every member).
   */
  const warmUp = async () => {
    let reads = 0;
    for (let calls = 0; calls < 200 && reads < pool.length; calls++) {
      reads += (await call()).operations.filter((operation) => operation === 'ttlMs').length;
    }
    assert.equal(reads, pool.length, 'one cooldown read per deployment');
  };
  return { call, warmUp, upstream };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('router round trips to the cache store per call', () => {
  it('weighted (the default), no deployment limits: none', async () => {
    const { call, warmUp } = await setup('weighted', [deployment()]);
    await warmUp();
    for (let i = 0; i < 5; i++) assert.deepEqual(await call(), { operations: [], error: null });
  });

  it('weighted over a pool of three: none', async () => {
    const { call, warmUp } = await setup('weighted', [deployment(), deployment(), deployment()]);
    await warmUp();
    for (let i = 0; i < 5; i++) assert.deepEqual((await call()).operations, []);
  });

  it('weighted over a pool of 1,000: the first call reads the cooldown of the one it draws', async () => {
    const { call } = await setup(
      'weighted',
      Array.from({ length: 1_000 }, () => deployment()),
    );
    assert.deepEqual(await call(), { operations: ['ttlMs'], error: null });
  });

  it('least-busy with one deployment: the in-flight start and end only', async () => {
    const { call, warmUp } = await setup('least-busy', [deployment()]);
    await warmUp();
    assert.deepEqual((await call()).operations, ['windowAdmit', 'windowAdjust']);
  });

  it('least-busy over a pool of two: one count read per deployment, then start and end', async () => {
    const { call, warmUp } = await setup('least-busy', [deployment(), deployment()]);
    await warmUp();
    assert.deepEqual((await call()).operations, [
      'windowState',
      'windowState',
      'windowAdmit',
      'windowAdjust',
    ]);
  });

  it('lowest-latency with one deployment: the latency sample only', async () => {
    const { call, warmUp } = await setup('lowest-latency', [deployment()]);
    await warmUp();
    assert.deepEqual((await call()).operations, ['get', 'set']);
  });

  it('lowest-latency over a pool of two: one latency read per deployment, then the sample', async () => {
    const { call, warmUp } = await setup('lowest-latency', [deployment(), deployment()]);
    await warmUp();
    assert.deepEqual((await call()).operations, ['get', 'get', 'get', 'set']);
  });

  it("a deployment's own rpmLimit: its window admission only", async () => {
    const { call, warmUp } = await setup('weighted', [deployment({ rpmLimit: 1_000 })]);
    await warmUp();
    assert.deepEqual((await call()).operations, ['windowAdmit']);
  });

  it("a deployment's own tpmLimit: the reservation and its settlement", async () => {
    const { call, warmUp } = await setup('weighted', [deployment({ tpmLimit: 1_000_000 })]);
    await warmUp();
    assert.deepEqual((await call()).operations, ['windowAdmit', 'windowAdjust']);
  });

  it('a failure: its count; the one that starts a cooldown: the key and its announcement', async () => {
    const { call, warmUp, upstream } = await setup('weighted', [deployment()]);
    await warmUp();
    upstream.failing = true;
    assert.deepEqual((await call()).operations, ['windowAdmit']);
    assert.deepEqual((await call()).operations, ['windowAdmit', 'setIfAbsent', 'publish']);
  });

  it('a call refused because every deployment is cooling: none', async () => {
    const { call, warmUp, upstream } = await setup('weighted', [deployment()]);
    await warmUp();
    upstream.failing = true;
    await call();
    await call();
    const refused = await call();
    assert.equal(refused.error?.code, 'deployments_in_cooldown');
    assert.deepEqual(refused.operations, []);
  });
});
