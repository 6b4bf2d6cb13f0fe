import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@redis/client';
import OpenAI from 'openai';
import { CHANNELS } from '../../src/cache/channels.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createKey, createOpenAIDeployment } from '../helpers/admin-api.ts';
import { type ChildGateway, startChildGateway } from '../helpers/child-gateway.ts';
import { logLines, urlOf, waitForLog, waitForWorker } from '../helpers/child-logs.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/database.ts';
import { waitUntil } from '../helpers/eventually.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { hi, statusOf } from '../helpers/openai-client.ts';
import { connectSql } from '../helpers/sql.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

// Regression: start-up awaited the key cache's Redis subscription, which threw while the
// subscriber was offline, so a replica (or a restarted worker) could not start during an outage.
describe('a gateway started while Redis is unreachable', () => {
  let fake: OpenAIFake;
  let database: TestDatabase;
  let proxy: TcpProxy;
  let gw: ChildGateway;
  /** The admin helpers take a gateway's URL and master key, which the child has too. */
  let handle: TestGateway;
  /** The serving worker's URL: a restarted worker's is read again from its log line. */
  let url: string;
  const prefix = `sy-test-${randomBytes(4).toString('hex')}:`;
  before(async () => {
    fake = await new OpenAIFake().start();
    database = await createTestDatabase();
    const target = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 6379) });
    proxy.cut();
    gw = await startChildGateway({
      database,
      env: {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_KEY_PREFIX: prefix,
      },
    });
    url = gw.url;
    handle = { url, masterKey: gw.masterKey } as TestGateway;
  });
  after(async () => {
    assert.equal(await gw?.stop(), 0, gw?.output());
    await proxy?.close();
    await database?.drop();
    await fake?.close();
  });

  it('starts not ready, serves the master key, subscribes when Redis appears, then limits', async () => {
    await waitForLog(
      gw,
      (line) => line.msg.startsWith('cache store unreachable at start-up'),
      'the start-up warning',
    );
    const ready = await fetch(`${url}/health/ready`);
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { checks: Record<string, string> }).checks.cache, 'failed');
    await waitForLog(
      gw,
      (line) => line.msg === 'cache store subscription waits for Redis; retrying',
      'a waiting subscription',
    );

    // The master key needs no shared state: admin writes and an unlimited call are served.
    await createOpenAIDeployment(handle, {
      publicModel: 'chat',
      baseUrl: fake.baseUrl,
      apiKey: 'sk-upstream-test',
    });
    const master = new OpenAI({ apiKey: gw.masterKey, baseURL: `${url}/v1`, maxRetries: 0 });
    const answer = await master.chat.completions.create(hi('chat'));
    assert.ok(answer.choices[0].message.content);

    // A limited key needs Redis: 503 until it answers.
    const key = await createKey(handle, { name: 'limited', allowedModels: ['*'], rpmLimit: 2 });
    const refused = new OpenAI({ apiKey: key.key, baseURL: `${url}/v1`, maxRetries: 0 });
    assert.equal(await statusOf(refused.chat.completions.create(hi('chat'))), 503);

    // A worker that dies during the outage is restarted by the primary and comes back, not ready,
    // serving the master key (it used to fail its start on the subscription, in a restart loop).
    const [first] = logLines(gw).filter((line) => line.msg === 'switchyard listening');
    process.kill(first.pid, 'SIGKILL');
    const restarted = await waitForWorker(gw, [first.pid]);
    url = urlOf(restarted);
    handle = { url, masterKey: gw.masterKey } as TestGateway;
    assert.equal((await fetch(`${url}/health/ready`)).status, 503);
    const again = new OpenAI({ apiKey: gw.masterKey, baseURL: `${url}/v1`, maxRetries: 0 });
    assert.ok((await again.chat.completions.create(hi('chat'))).choices[0].message.content);
    const limited = new OpenAI({ apiKey: key.key, baseURL: `${url}/v1`, maxRetries: 0 });

    proxy.restore();
    await waitUntil(
      async () => (await fetch(`${url}/health/ready`)).status === 200,
      'ready once Redis is up',
      15_000,
    );
    await waitForLog(
      gw,
      (line) => line.msg === 'cache store subscription live',
      'a subscription live',
      5_000,
    );

    assert.equal(await statusOf(limited.chat.completions.create(hi('chat'))), 200);
    assert.equal(await statusOf(limited.chat.completions.create(hi('chat'))), 200);
    assert.equal(await statusOf(limited.chat.completions.create(hi('chat'))), 429, 'the RPM limit holds');

    // The key cache's subscription, made while Redis was down, is live: a key disabled behind this
    // replica's back (as another replica would) is refused once the change is announced on Redis.
    const sql = connectSql(database.url);
    await sql`update virtual_keys set enabled = false where id = ${key.id}`;
    await sql.end();
    assert.equal(await statusOf(limited.chat.completions.create(hi('chat'))), 429, 'still cached as enabled');
    const redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    await redis.publish(`${prefix}${CHANNELS.keysChanged}`, key.id);
    await redis.close();
    await waitUntil(
      async () => (await statusOf(limited.chat.completions.create(hi('chat')))) === 401,
      'the disabled key refused',
      2_000,
    );
  });
});
