import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GATEWAY_VERSION } from '../../src/server/openapi.ts';
import { admin } from '../helpers/admin-api.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

interface Status {
  variant: string;
  version: string;
  startedAt: string;
  uptimeSeconds: number;
}

/** `GET /admin/status`: what the console's health page shows beside readiness. */
describe('GET /admin/status', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ redis: false, env: { GATEWAY_VARIANT: 'a' } });
  });
  after(() => gw.close());

  it("answers the variant, the version and this process's uptime", async () => {
    const status = await admin<Status>(gw, 'GET', '/status');
    assert.equal(status.variant, 'a');
    assert.equal(status.version, GATEWAY_VERSION);
    assert.ok(status.uptimeSeconds > 0);
    const started = Date.parse(status.startedAt);
    assert.ok(
      Math.abs(started + status.uptimeSeconds * 1000 - Date.now()) < 5_000,
      'started + uptime is now',
    );
  });

  it('refuses anything but the master key', async () => {
    const res = await fetch(`${gw.url}/admin/status`, { headers: { authorization: 'Bearer sk-sy-nope' } });
    assert.equal(res.status, 401);
    await res.arrayBuffer();
  });
});
