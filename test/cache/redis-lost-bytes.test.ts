import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@redis/client';
import { CacheUnavailableError } from '../../src/cache/cache-store.ts';
import { RedisCacheStore } from '../../src/cache/redis-cache-store.ts';
import { waitUntil } from '../helpers/eventually.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

/**
 * Issue 30 finding 7: 300 ms of bytes lost on the open Redis connection (a blackhole, not a
 * stall) left the connection one reply out of step until a restart: each command took the reply
 * of the command before it, so an RPM check read another key's counter. A command past its
 * deadline must reset the connection; commands may fail (503) meanwhile, never get a wrong reply.
 */

const REDIS_URL = 'redis://127.0.0.1:6379';
const PREFIX = `switchyard-test:${randomUUID()}:`;
/** What the issue lost: bytes dropped both ways for this long, then the network is back. */
const LOST_MS = 300;
const COMMAND_TIMEOUT_MS = 100;
const KEYS = 20;

const raw = createClient({ url: REDIS_URL });
let proxy: TcpProxy;
let store: RedisCacheStore;

before(async () => {
  await raw.connect();
  proxy = await startTcpProxy({ targetHost: '127.0.0.1', targetPort: 6379 });
  store = await RedisCacheStore.connect({
    url: `redis://127.0.0.1:${proxy.port}`,
    keyPrefix: PREFIX,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
  });
  for (let i = 0; i < KEYS; i++) await store.set(`k${i}`, `v${i}`, 60_000);
});

after(async () => {
  await store?.close();
  await proxy?.close();
  for await (const keys of raw.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 500 })) {
    if (keys.length > 0) await raw.del(keys);
  }
  await raw.close();
});

/** Reads every key at once; each answer is its own value or CacheUnavailableError, never another's. */
async function readAll(): Promise<'right' | 'unavailable'> {
  const answers = await Promise.allSettled(Array.from({ length: KEYS }, (_, i) => store.get(`k${i}`)));
  let unavailable = false;
  answers.forEach((answer, i) => {
    if (answer.status === 'fulfilled') {
      assert.equal(answer.value, `v${i}`, `k${i} got another command's reply`);
    } else {
      assert.ok(answer.reason instanceof CacheUnavailableError, String(answer.reason));
      unavailable = true;
    }
  });
  return unavailable ? 'unavailable' : 'right';
}

test("a Redis connection that lost bytes for 300 ms never answers a command with another one's reply and recovers", async () => {
  proxy.blackhole();
  const lost = Promise.allSettled([store.get('k0'), store.incrBy('counter', 1, 60_000)]);
  await sleep(LOST_MS);
  proxy.restore();
  for (const answer of await lost) assert.equal(answer.status, 'rejected', 'lost commands fail');
  await waitUntil(async () => (await readAll()) === 'right', 'every key read right again, with no restart');
  for (let round = 0; round < 5; round++) assert.equal(await readAll(), 'right');
  await store.ping();
});
