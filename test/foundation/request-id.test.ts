import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOpenAIDeployment } from '../helpers/admin-api.ts';
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

  it('appears in what the request logs on its way, a failed call included', async () => {
    // Nothing listens on port 9 (discard): the attempt is refused at once.
    await createOpenAIDeployment(gw, {
      publicModel: 'unreachable',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'sk-x',
    });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gw.masterKey}`,
        'content-type': 'application/json',
        'x-request-id': 'fail-me-7',
      },
      body: JSON.stringify({ model: 'unreachable', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.ok(res.status >= 500, `status ${res.status}`);
    const lines = gw.logs.map((l) => JSON.parse(l)).filter((l) => l.requestId === 'fail-me-7');
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['call failed', 'request completed'],
    );
  });
});
