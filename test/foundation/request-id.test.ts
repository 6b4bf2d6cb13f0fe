import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

describe('x-request-id', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ redis: false });
  });
  after(() => gw.close());

  it('is generated when the client sends none', async () => {
    const res = await fetch(`${gw.url}/health/live`);
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('echoes an inbound id, on success and on error answers', async () => {
    for (const path of ['/health/live', '/v1/chat/completions', '/nope']) {
      const res = await fetch(`${gw.url}${path}`, { headers: { 'x-request-id': 'trace-abc-123' } });
      assert.equal(res.headers.get('x-request-id'), 'trace-abc-123', path);
    }
  });

  it('replaces an inbound id that is not printable ASCII', async () => {
    const res = await fetch(`${gw.url}/health/live`, { headers: { 'x-request-id': 'a'.repeat(500) } });
    assert.notEqual(res.headers.get('x-request-id'), 'a'.repeat(500));
  });

  it('appears in the JSON log line of the request', async () => {
    await fetch(`${gw.url}/health/live`, { headers: { 'x-request-id': 'log-me-42' } });
    const line = gw.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === 'log-me-42');
    assert.ok(line, 'a log object carries the request id');
    assert.equal(line.url, '/health/live');
  });
});
