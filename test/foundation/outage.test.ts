import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ChildGateway, startChildGatewayBehindProxy } from '../helpers/child-gateway.ts';
import { TEST_REDIS_URL, type TestDatabase } from '../helpers/database.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { insertVirtualKey } from '../helpers/seed.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const CHAT = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('condition not reached in time');
}

describe('Postgres outage', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let gw: ChildGateway;
  before(async () => {
    ({ database, proxy, gw } = await startChildGatewayBehindProxy());
  });
  after(async () => {
    assert.equal(await gw.stop(), 0, gw.output());
    await proxy.close();
    await database.drop();
  });

  it('answers 503 service_unavailable with Retry-After within about a second, then recovers by itself', async () => {
    const key = await insertVirtualKey(database.url);
    proxy.cut();
    const ready = await timed(() => fetch(`${gw.url}/health/ready`));
    assert.equal(ready.value.status, 503);
    assert.ok(ready.value.headers.get('retry-after'));
    assert.deepEqual(await ready.value.json(), {
      status: 'unavailable',
      checks: { database: 'failed', cache: 'ok', extensions: 'ok' },
    });
    assert.ok(ready.ms < 2000, `readiness answered in ${ready.ms} ms`);

    const call = await timed(() =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(CHAT),
      }),
    );
    assert.equal(call.value.status, 503);
    assert.ok(Number(call.value.headers.get('retry-after')) >= 1);
    const body = (await call.value.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'service_unavailable');
    assert.ok(!/ECONN|postgres|stack/i.test(body.error.message), 'generic public message');
    assert.ok(call.ms < 2000, `the call failed fast (${call.ms} ms)`);

    assert.equal((await fetch(`${gw.url}/health/live`)).status, 200, 'liveness is untouched');

    // Regression: an admin write failing after its body was read was answered 499 and logged as
    // a client abort, because a request stream counts as destroyed once its body is read whole.
    const write = await fetch(`${gw.url}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'during-outage', allowedModels: ['*'] }),
    });
    assert.equal(write.status, 503);
    assert.ok(Number(write.headers.get('retry-after')) >= 1);
    assert.equal(((await write.json()) as { error: { code: string } }).error.code, 'service_unavailable');

    proxy.restore();
    await waitUntil(async () => (await fetch(`${gw.url}/health/ready`)).status === 200);
    const again = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(CHAT),
    });
    assert.equal(again.status, 404, 'authenticated against the database again (then: unknown model)');
  });
});

describe('Redis outage', () => {
  let proxy: TcpProxy;
  let gw: TestGateway;
  before(async () => {
    const target = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 6379) });
    gw = await startTestGateway({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
  });
  after(async () => {
    await gw.close();
    await proxy.close();
  });

  for (const mode of ['cut', 'stall'] as const) {
    it(`readiness fails fast when Redis is ${mode === 'cut' ? 'unreachable' : 'hanging'} and recovers by itself`, async () => {
      proxy[mode]();
      const ready = await timed(() => fetch(`${gw.url}/health/ready`));
      assert.equal(ready.value.status, 503);
      assert.ok(ready.value.headers.get('retry-after'));
      assert.deepEqual(await ready.value.json(), {
        status: 'unavailable',
        checks: { database: 'ok', cache: 'failed', extensions: 'ok' },
      });
      assert.ok(ready.ms < 2000, `answered in ${ready.ms} ms`);
      proxy.restore();
      await waitUntil(async () => (await fetch(`${gw.url}/health/ready`)).status === 200);
    });
  }
});
