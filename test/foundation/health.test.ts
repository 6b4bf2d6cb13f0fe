import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

describe('health (variant B, Postgres + Redis)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  it('/health/live answers 200 without credentials', async () => {
    const res = await fetch(`${gw.url}/health/live`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  it('/health/ready reports each dependency', async () => {
    const res = await fetch(`${gw.url}/health/ready`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      status: 'ok',
      checks: { database: 'ok', cache: 'ok', extensions: 'ok' },
    });
  });

  it('/health is not served in variant B', async () => {
    const res = await fetch(`${gw.url}/health`);
    assert.equal(res.status, 404);
  });
});

describe('health (variant A, embedded)', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ storage: 'embedded', redis: false, env: { GATEWAY_VARIANT: 'a' } });
  });
  after(() => gw.close());

  it('/health is an alias of /health/ready', async () => {
    const res = await fetch(`${gw.url}/health`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      status: 'ok',
      checks: { database: 'ok', cache: 'ok', extensions: 'ok' },
    });
  });
});
