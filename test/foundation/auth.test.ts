import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const CHAT = { model: 'nothing-here', messages: [{ role: 'user', content: 'hi' }] };

async function post(url: string, headers: Record<string, string>, body: unknown = CHAT) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('authentication', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ redis: false });
  });
  after(() => gw.close());

  it('/v1 without a credential is 401 in the OpenAI shape', async () => {
    const res = await post(`${gw.url}/v1/chat/completions`, {});
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, {
      error: {
        message: 'Missing or invalid API key.',
        type: 'authentication_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  });

  it('/v1/messages without a credential is 401 in the Anthropic shape', async () => {
    const res = await post(`${gw.url}/v1/messages`, {}, { model: 'x', max_tokens: 5, messages: [] });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, {
      type: 'error',
      error: { type: 'authentication_error', message: 'Missing or invalid API key.' },
    });
  });

  it('accepts the master key by Bearer, x-api-key and ?api_key= (past auth: the model is unknown)', async () => {
    const viaBearer = await post(`${gw.url}/v1/chat/completions`, {
      authorization: `Bearer ${gw.masterKey}`,
    });
    const viaHeader = await post(`${gw.url}/v1/chat/completions`, { 'x-api-key': gw.masterKey });
    const viaQuery = await post(
      `${gw.url}/v1/chat/completions?api_key=${encodeURIComponent(gw.masterKey)}`,
      {},
    );
    for (const res of [viaBearer, viaHeader, viaQuery]) {
      assert.equal(res.status, 404);
      assert.equal((res.body.error as { code: string }).code, 'model_not_found');
    }
  });

  it('refuses a wrong key of the same length', async () => {
    const wrong = gw.masterKey.slice(0, -1) + (gw.masterKey.endsWith('a') ? 'b' : 'a');
    const res = await post(`${gw.url}/v1/chat/completions`, { authorization: `Bearer ${wrong}` });
    assert.equal(res.status, 401);
  });

  it('/admin accepts only Bearer', async () => {
    const viaHeader = await fetch(`${gw.url}/admin/nothing`, { headers: { 'x-api-key': gw.masterKey } });
    assert.equal(viaHeader.status, 401);
    const viaQuery = await fetch(`${gw.url}/admin/nothing?api_key=${encodeURIComponent(gw.masterKey)}`);
    assert.equal(viaQuery.status, 401);
    const viaBearer = await fetch(`${gw.url}/admin/nothing`, {
      headers: { authorization: `Bearer ${gw.masterKey}` },
    });
    assert.equal(viaBearer.status, 404, 'authenticated, then no such route');
  });

  it('never writes the ?api_key= value to the logs', async () => {
    await post(`${gw.url}/v1/chat/completions?api_key=${encodeURIComponent(gw.masterKey)}`, {});
    await fetch(`${gw.url}/v1/models?api_key=not-a-real-key-123`);
    const all = gw.logs.join('\n');
    assert.ok(!all.includes(gw.masterKey), 'master key absent from logs');
    assert.ok(!all.includes('not-a-real-key-123'), 'query credential absent from logs');
    assert.ok(all.includes('api_key=%5Bredacted%5D'), 'the parameter is logged as redacted');
  });

  it('answers bad JSON with 400 invalid_request, not a stack trace', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.masterKey}` },
      body: '{"model": ',
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; type: string } };
    assert.equal(body.error.code, 'invalid_request');
    assert.equal(body.error.type, 'invalid_request_error');
  });

  it('names the bad field in a validation error', async () => {
    const res = await post(
      `${gw.url}/v1/chat/completions`,
      { authorization: `Bearer ${gw.masterKey}` },
      { model: 'm' },
    );
    assert.equal(res.status, 400);
    assert.equal((res.body.error as { param: string }).param, 'messages');
  });
});
