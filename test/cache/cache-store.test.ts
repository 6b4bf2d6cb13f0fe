import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@redis/client';
import type { CacheStore } from '../../src/cache/cache-store.ts';
import { CacheUnavailableError } from '../../src/cache/cache-store.ts';
import { createCacheStore } from '../../src/cache/create-cache-store.ts';
import { MemoryCacheStore } from '../../src/cache/memory-cache-store.ts';
import { RedisCacheStore } from '../../src/cache/redis-cache-store.ts';
import { callCountKey, windowKeys, withHashTag } from '../../src/cache/redis-keys.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { describeCacheStoreContract, eventually } from './cache-store-contract.ts';

const REDIS_HOST = '127.0.0.1';
const REDIS_PORT = 6379;
const REDIS_URL = `redis://${REDIS_HOST}:${REDIS_PORT}`;
/** Every key of this run lives under this prefix, deleted in after(); never a FLUSHDB. */
const PREFIX = `switchyard-test:${randomUUID()}:`;

const raw = createClient({ url: REDIS_URL });

before(async () => {
  await raw.connect();
});

after(async () => {
  for await (const keys of raw.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 500 })) {
    if (keys.length > 0) await raw.del(keys);
  }
  await raw.close();
});

describeCacheStoreContract('memory', async () => new MemoryCacheStore());
describeCacheStoreContract('redis', () => RedisCacheStore.connect({ url: REDIS_URL, keyPrefix: PREFIX }));

describe('RedisCacheStore', () => {
  let store: RedisCacheStore;
  before(async () => {
    store = await RedisCacheStore.connect({ url: REDIS_URL, keyPrefix: PREFIX });
  });
  after(async () => {
    await store.close();
  });

  test('publishes to the subscribers of another store sharing Redis', async () => {
    const peer = await RedisCacheStore.connect({ url: REDIS_URL, keyPrefix: PREFIX });
    const channel = `test:${randomUUID()}`;
    const received: string[] = [];
    const unsubscribe = await peer.subscribe(channel, (m) => received.push(m));
    await store.publish(channel, 'invalidate');
    await eventually(() => received.length === 1);
    assert.deepEqual(received, ['invalidate']);
    await unsubscribe();
    await peer.close();
  });

  test('keeps a sliding log in three keys of one hash slot, under the prefix, expiring with the window', async () => {
    const id = randomUUID();
    await store.windowAdmit(`rl:{key_${id}}:rpm`, { id: 'r1', cost: 1, limit: 5, windowMs: 150 });
    await store.windowAdmit(`plain-${id}`, { id: 'r1', cost: 1, limit: 5, windowMs: 150 });
    const tagged = [`rl:{key_${id}}:rpm:log`, `rl:{key_${id}}:rpm:cost`, `rl:{key_${id}}:rpm:sum`];
    const wrapped = [`{plain-${id}}:log`, `{plain-${id}}:cost`, `{plain-${id}}:sum`];
    for (const k of [...tagged, ...wrapped]) {
      const ttl = await raw.pTTL(PREFIX + k);
      assert.ok(ttl > 0 && ttl <= 150, `${k} ttl ${ttl}`);
    }
    await sleep(250);
    assert.equal(await raw.exists([...tagged, ...wrapped].map((k) => PREFIX + k)), 0, 'idle windows vanish');
  });

  test("keeps a key's request window as one sorted set, apart from a sliding log of the same name", async () => {
    const tag = `key_${randomUUID()}`;
    const call = (id: string) =>
      store.admitCall({
        id,
        windowMs: 150,
        requests: { key: `rl:{${tag}}:rpm`, limit: 5 },
        tokens: { key: `rl:{${tag}}:tpm`, limit: 1000, cost: 10 },
        budget: null,
      });
    await call('r1');
    await call('r2');
    const calls = `${PREFIX}rl:{${tag}}:rpm:calls`;
    assert.deepEqual(await raw.zRange(calls, 0, -1), ['r1', 'r2']);
    assert.equal(await raw.exists(windowKeys(PREFIX, `rl:{${tag}}:rpm`)), 0, 'no log, cost hash or sum');
    assert.equal(
      await raw.hGet(`${PREFIX}rl:{${tag}}:tpm:cost`, 'r2'),
      '10',
      'the token window keeps its costs',
    );
    const ttl = await raw.pTTL(calls);
    assert.ok(ttl > 0 && ttl <= 150, `ttl ${ttl}`);
    await sleep(250);
    assert.equal(await raw.exists(calls), 0, 'an idle count vanishes');
  });

  test('isolates stores with different prefixes', async () => {
    const other = await RedisCacheStore.connect({ url: REDIS_URL, keyPrefix: `${PREFIX}other:` });
    const k = `test:{${randomUUID()}}:value`;
    await store.set(k, 'mine', 10_000);
    assert.equal(await other.get(k), null);
    assert.equal(await raw.get(PREFIX + k), 'mine');
    await other.close();
  });

  test("derives window keys inside the logical key's hash tag, or makes the key the tag", () => {
    assert.deepEqual(windowKeys('p:', 'rl:{key_1}:rpm'), [
      'p:rl:{key_1}:rpm:log',
      'p:rl:{key_1}:rpm:cost',
      'p:rl:{key_1}:rpm:sum',
    ]);
    assert.equal(callCountKey('p:', 'rl:{key_1}:rpm'), 'p:rl:{key_1}:rpm:calls');
    assert.equal(callCountKey('p:', 'plain'), 'p:{plain}:calls');
    assert.equal(withHashTag('a{}b'), '{a{}b}', 'an empty tag is no tag');
    assert.equal(withHashTag('a}b{c'), '{a}b{c}', 'a { with no } after it is no tag');
    assert.equal(withHashTag('x{y}z{w}'), 'x{y}z{w}');
  });

  test('rejects a prefix that would move the hash tag', () => {
    assert.throws(() => new RedisCacheStore({ url: REDIS_URL, keyPrefix: 'a{b}:' }), TypeError);
  });

  test('puts no timer on each command (node-redis 6 armed a 5 s AbortSignal.timeout per command)', async () => {
    const k = `test:{${randomUUID()}}:timers`;
    await store.set(k, '0', 10_000);
    let timers = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'Timeout') timers++;
      },
    });
    hook.enable();
    for (let i = 0; i < 100; i++) {
      await store.windowAdmit(k, { id: `r${i}`, cost: 1, limit: 1000, windowMs: 10_000 });
      await store.incrBy(`${k}:n`, 1, 10_000);
      await store.get(k);
    }
    hook.disable();
    // One deadline interval may be armed; a timer per command would be 300 (600 before).
    assert.ok(timers <= 2, `${timers} timers for 300 commands`);
  });

  test('keeps a wrong-type command error as it is, not as an outage', async () => {
    const k = `test:{${randomUUID()}}:text`;
    await store.set(k, 'not a number', 10_000);
    await assert.rejects(store.incrBy(k, 1, 1000), (error) => !(error instanceof CacheUnavailableError));
  });
});

describe('RedisCacheStore during a Redis outage', () => {
  /** Settles with the error, failing when the promise takes longer than `withinMs`. */
  async function rejection(promise: Promise<unknown>, withinMs = 1500): Promise<unknown> {
    const outcome = await Promise.race([
      promise.then(
        () => ({ kind: 'resolved' as const }),
        (error: unknown) => ({ kind: 'rejected' as const, error }),
      ),
      sleep(withinMs, { kind: 'pending' as const }),
    ]);
    assert.equal(outcome.kind, 'rejected', `expected a rejection within ${withinMs} ms, got ${outcome.kind}`);
    return outcome.kind === 'rejected' ? outcome.error : undefined;
  }

  async function recovered(store: CacheStore): Promise<void> {
    await eventually(
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      5000,
    );
  }

  test('fails fast while the connection is cut and recovers by itself when it is back', async () => {
    const proxy = await startTcpProxy({ targetHost: REDIS_HOST, targetPort: REDIS_PORT });
    const store = await RedisCacheStore.connect({
      url: `redis://127.0.0.1:${proxy.port}`,
      keyPrefix: PREFIX,
    });
    const k = `test:{${randomUUID()}}:value`;
    await store.set(k, 'before', 60_000);

    proxy.cut();
    for (const call of [
      () => store.get(k),
      () => store.set(k, 'during', 60_000),
      () => store.windowAdmit(k, { id: 'r', cost: 1, limit: 5, windowMs: 1000 }),
      () =>
        store.admitCall({
          id: 'r',
          windowMs: 1000,
          requests: null,
          tokens: null,
          budget: { key: k, heldKey: `${k}:held`, limit: 10, amount: 1, leaseMs: 1000 },
        }),
      () => store.ping(),
    ]) {
      assert.ok((await rejection(call())) instanceof CacheUnavailableError);
    }
    await sleep(300);
    assert.ok((await rejection(store.get(k))) instanceof CacheUnavailableError, 'still failing fast later');

    proxy.restore();
    await recovered(store);
    assert.equal(await store.get(k), 'before');
    await store.close();
    await proxy.close();
  });

  test('fails within the command timeout when the network hangs, and replies stay matched after', async () => {
    const proxy = await startTcpProxy({ targetHost: REDIS_HOST, targetPort: REDIS_PORT });
    const store = await RedisCacheStore.connect({
      url: `redis://127.0.0.1:${proxy.port}`,
      keyPrefix: PREFIX,
    });
    const a = `test:{${randomUUID()}}:a`;
    const b = `test:{${randomUUID()}}:b`;
    await store.set(a, 'value-a', 60_000);
    await store.set(b, 'value-b', 60_000);

    proxy.stall();
    assert.ok((await rejection(store.get(a))) instanceof CacheUnavailableError);
    assert.ok((await rejection(store.ping())) instanceof CacheUnavailableError);

    proxy.restore();
    await recovered(store);
    assert.equal(await store.get(b), 'value-b');
    assert.equal(await store.get(a), 'value-a');
    await store.close();
    await proxy.close();
  });

  test('subscriptions survive a reconnect', async () => {
    const proxy = await startTcpProxy({ targetHost: REDIS_HOST, targetPort: REDIS_PORT });
    const subscriber = await RedisCacheStore.connect({
      url: `redis://127.0.0.1:${proxy.port}`,
      keyPrefix: PREFIX,
    });
    const publisher = await RedisCacheStore.connect({ url: REDIS_URL, keyPrefix: PREFIX });
    const channel = `test:${randomUUID()}`;
    const received: string[] = [];
    await subscriber.subscribe(channel, (m) => received.push(m));

    proxy.cut();
    await sleep(200);
    proxy.restore();
    await recovered(subscriber);
    // The resubscription may land just after the connection is ready: publish until it arrives.
    await eventually(async () => {
      await publisher.publish(channel, 'after reconnect');
      await sleep(50);
      return received.length > 0;
    }, 5000);
    assert.equal(received[0], 'after reconnect');
    await subscriber.close();
    await publisher.close();
    await proxy.close();
  });

  test('starts while Redis is down, fails fast, and connects when it comes up', async () => {
    const proxy = await startTcpProxy({ targetHost: REDIS_HOST, targetPort: REDIS_PORT });
    proxy.cut();
    const starting = RedisCacheStore.connect({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix: PREFIX });
    const outcome = await Promise.race([starting.then(() => 'started'), sleep(3000, 'hung')]);
    assert.equal(outcome, 'started', 'connect() does not wait for Redis forever');
    const store = await starting;
    assert.ok((await rejection(store.ping())) instanceof CacheUnavailableError);

    proxy.restore();
    await recovered(store);
    const k = `test:{${randomUUID()}}:value`;
    await store.set(k, 'up', 10_000);
    assert.equal(await store.get(k), 'up');
    await store.close();
    await proxy.close();
  });

  test('a subscription made while Redis is down waits, keeps readiness failing, and delivers once Redis is up', async () => {
    const channel = `test:${randomUUID()}`;
    const received: string[] = [];
    const publisher = await RedisCacheStore.connect({ url: REDIS_URL, keyPrefix: PREFIX });
    const proxy = await startTcpProxy({ targetHost: REDIS_HOST, targetPort: REDIS_PORT });
    proxy.cut();
    const subscriber = await RedisCacheStore.connect({
      url: `redis://127.0.0.1:${proxy.port}`,
      keyPrefix: PREFIX,
    });
    // Regression: subscribe() threw while the subscriber was offline, so a gateway could not start.
    const unsubscribe = await subscriber.subscribe(channel, (m) => received.push(m));
    assert.ok((await rejection(subscriber.ping())) instanceof CacheUnavailableError);

    proxy.restore();
    await recovered(subscriber);
    // Ready means subscribed: the first message after it arrives.
    await publisher.publish(channel, 'after the outage');
    await eventually(() => received.length > 0, 5000);
    assert.deepEqual(received, ['after the outage']);
    await unsubscribe();
    await publisher.publish(channel, 'after unsubscribe');
    await sleep(100);
    assert.deepEqual(received, ['after the outage']);
    await subscriber.close();
    await publisher.close();
    await proxy.close();
  });

  test('close() returns promptly while Redis is unreachable', async () => {
    const proxy = await startTcpProxy({ targetHost: REDIS_HOST, targetPort: REDIS_PORT });
    const store = await RedisCacheStore.connect({
      url: `redis://127.0.0.1:${proxy.port}`,
      keyPrefix: PREFIX,
    });
    proxy.stall();
    const closing = store.close();
    assert.equal(await Promise.race([closing.then(() => 'closed'), sleep(3000, 'hung')]), 'closed');
    await proxy.close();
  });
});

describe('createCacheStore', () => {
  test('gives the memory store without a Redis URL and the Redis store with one', async () => {
    const memory = await createCacheStore({ redisUrl: undefined, keyPrefix: PREFIX });
    assert.equal(memory.kind, 'memory');
    await memory.close();
    const redis = await createCacheStore({ redisUrl: REDIS_URL, keyPrefix: PREFIX });
    assert.equal(redis.kind, 'redis');
    await redis.ping();
    await redis.close();
  });

  test('a stalled Redis fails a command at the bound it is given (DEPENDENCY_TIMEOUT_MS), not at 1 s', async () => {
    const proxy = await startTcpProxy({ targetHost: REDIS_HOST, targetPort: REDIS_PORT });
    const store = await createCacheStore({
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      keyPrefix: PREFIX,
      commandTimeoutMs: 3000,
    });
    try {
      await store.ping();
      proxy.stall();
      const started = performance.now();
      await assert.rejects(store.get(`test:{${randomUUID()}}:value`), CacheUnavailableError);
      const waitedMs = performance.now() - started;
      assert.ok(waitedMs >= 2900, `failed after ${Math.round(waitedMs)} ms, before the 3000 ms bound`);
    } finally {
      proxy.restore();
      await store.close();
      await proxy.close();
    }
  });
});
