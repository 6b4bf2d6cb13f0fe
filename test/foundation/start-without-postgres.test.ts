import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { admin, createKey, createOpenAIDeployment } from '../helpers/admin-api.ts';
import { type ChildGateway, startChildGateway } from '../helpers/child-gateway.ts';
import { logLines, urlOf, waitForLog, waitForWorker } from '../helpers/child-logs.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/database.ts';
import { waitUntil } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { hi, statusOf } from '../helpers/openai-client.ts';
import { sharedEnv } from '../helpers/shared-env.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

async function readiness(url: string): Promise<{ status: number; checks: Record<string, string> }> {
  const answer = await fetch(`${url}/health/ready`);
  return {
    status: answer.status,
    checks: ((await answer.json()) as { checks: Record<string, string> }).checks,
  };
}

/** A child gateway whose Postgres sits behind a proxy refusing every connection until `restore()`. */
async function startRefused(
  database: TestDatabase,
  env: Record<string, string>,
): Promise<{ proxy: TcpProxy; gw: ChildGateway }> {
  const target = new URL(database.url);
  const proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) });
  proxy.cut();
  const proxied = new URL(database.url);
  proxied.port = String(proxy.port);
  const gw = await startChildGateway({
    database,
    databaseUrl: proxied.toString(),
    env: { REDIS_URL: TEST_REDIS_URL, ...env },
  });
  return { proxy, gw };
}

async function stopAll(parts: {
  gw?: ChildGateway;
  proxy?: TcpProxy;
  database?: TestDatabase;
  fake?: OpenAIFake;
}) {
  if (parts.gw !== undefined) assert.equal(await parts.gw.stop(), 0, parts.gw.output());
  await parts.proxy?.close();
  await parts.database?.drop();
  await parts.fake?.close();
}

const BLOCKER = `export function beforeUpstream(call) {
  if (JSON.stringify(call.body.messages).includes('forbidden')) return { reject: { status: 400, message: 'blocked' } };
}`;

// The contract changed with issue 35 (item 2): `serve` used to exit 1 when Postgres refused at start.
describe('a gateway started while Postgres refuses connections', () => {
  let fake: OpenAIFake;
  let database: TestDatabase;
  let proxy: TcpProxy;
  /** The replica that ran before the outage: it left the configuration's copy in Redis. */
  let first: TestGateway;
  let firstClosed = false;
  let gw: ChildGateway;
  let url: string;
  let masterKey: string;
  let key: { id: string; key: string };
  before(async () => {
    fake = await new OpenAIFake().start();
    database = await createTestDatabase();
    first = await startTestGateway({ database });
    masterKey = first.masterKey;
    await createOpenAIDeployment(first, {
      publicModel: 'chat',
      baseUrl: fake.baseUrl,
      apiKey: 'sk-upstream-test',
    });
    await admin(first, 'POST', '/extensions', { id: 'blocker', source: BLOCKER });
    key = await createKey(first, { name: 'app', allowedModels: ['*'] });
    const shared = sharedEnv(first);
    await first.close();
    firstClosed = true;
    ({ proxy, gw } = await startRefused(database, shared));
    url = gw.url;
  });
  after(async () => {
    if (!firstClosed) await first?.close();
    await stopAll({ gw, proxy, database, fake });
  });

  it('starts not ready, serves the copy in Redis with the master key, loads when Postgres returns', async () => {
    await waitForLog(gw, (line) => line.msg.startsWith('database unreachable at start-up'), 'the warning');
    await waitForLog(
      gw,
      (line) => line.msg.startsWith('serving the cache store copy of the configuration: 1 deployment'),
      'the copy served',
    );
    const down = await readiness(url);
    assert.equal(down.status, 503);
    assert.equal(down.checks.database, 'failed');
    assert.equal(down.checks.configuration, 'failed');

    // The master key needs no database; the deployment and its extension come from the copy.
    const master = new OpenAI({ apiKey: masterKey, baseURL: `${url}/v1`, maxRetries: 0 });
    assert.ok((await master.chat.completions.create(hi('chat'))).choices[0].message.content);
    assert.equal(
      await statusOf(master.chat.completions.create(hi('chat', 'forbidden'))),
      400,
      'the extension runs',
    );
    // A key this process never resolved needs the database.
    const app = new OpenAI({ apiKey: key.key, baseURL: `${url}/v1`, maxRetries: 0 });
    assert.equal(await statusOf(app.chat.completions.create(hi('chat'))), 503);

    // A worker restarted during the outage comes back the same way, not in a restart loop.
    const [listening] = logLines(gw).filter((line) => line.msg === 'switchyard listening');
    process.kill(listening.pid, 'SIGKILL');
    const restarted = await waitForWorker(gw, [listening.pid]);
    url = urlOf(restarted);
    assert.equal((await readiness(url)).status, 503);
    const again = new OpenAI({ apiKey: masterKey, baseURL: `${url}/v1`, maxRetries: 0 });
    assert.ok((await again.chat.completions.create(hi('chat'))).choices[0].message.content);

    proxy.restore();
    await waitUntil(async () => (await readiness(url)).status === 200, 'ready once Postgres answers', 15_000);
    await waitForLog(gw, (line) => line.msg === 'configuration loaded from the database', 'the load', 5_000);
    const now = new OpenAI({ apiKey: key.key, baseURL: `${url}/v1`, maxRetries: 0 });
    assert.equal(await statusOf(now.chat.completions.create(hi('chat'))), 200);

    // Postgres gone again: the key this worker has resolved is served from its cache.
    proxy.cut();
    assert.equal(await statusOf(now.chat.completions.create(hi('chat'))), 200);
    proxy.restore();
  });
});

describe('a gateway started while Postgres refuses, with no copy of the configuration in Redis', () => {
  let fake: OpenAIFake;
  let database: TestDatabase;
  let proxy: TcpProxy;
  let gw: ChildGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    database = await createTestDatabase();
    ({ proxy, gw } = await startRefused(database, {
      REDIS_KEY_PREFIX: `sy-test-${randomBytes(4).toString('hex')}:`,
    }));
  });
  after(() => stopAll({ gw, proxy, database, fake }));

  it('serves no model (no call without its extensions) until Postgres answers, then serves', async () => {
    await waitForLog(
      gw,
      (line) => line.msg.startsWith('no copy of the extensions in the cache store'),
      'the warning',
    );
    const master = new OpenAI({ apiKey: gw.masterKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    assert.equal((await readiness(gw.url)).status, 503);
    proxy.restore();
    await waitUntil(
      async () => (await readiness(gw.url)).status === 200,
      'ready once Postgres answers',
      15_000,
    );
    const handle = { url: gw.url, masterKey: gw.masterKey } as TestGateway;
    await createOpenAIDeployment(handle, {
      publicModel: 'chat',
      baseUrl: fake.baseUrl,
      apiKey: 'sk-upstream-test',
    });
    assert.equal(await statusOf(master.chat.completions.create(hi('chat'))), 200);
  });
});
