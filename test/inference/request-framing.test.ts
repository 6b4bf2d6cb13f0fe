import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { admin, createDeployment, createKey } from '../helpers/admin-api.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

/**
 * Issue 30 findings 4 and 11: requests refused for their framing (a body-less request sent with
 * `content-type: application/json` got a bare 400 with no reason; a JSON body sent as
 * `text/plain` got 400 where 415 says what is wrong), and 500s on input the client got wrong (a
 * NUL in a response id or `previous_response_id`, an unknown chat role routed to Claude).
 */

interface ErrorBody {
  error: { message: string; code: string | null; type: string };
}

describe('request framing and ids the client got wrong', () => {
  let gw: TestGateway;
  let openai: OpenAIFake;
  let anthropic: AnthropicFake;
  let secret: string;

  before(async () => {
    openai = await new OpenAIFake().start();
    anthropic = await new AnthropicFake().start();
    gw = await startTestGateway();
    await createDeployment(gw, {
      publicModel: 'gpt',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: openai.baseUrl,
      apiKey: 'sk-upstream',
    });
    await createDeployment(gw, {
      publicModel: 'claude',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: anthropic.url,
      apiKey: 'sk-ant-upstream',
    });
    secret = (await createKey(gw, { name: 'framing', allowedModels: ['*'] })).key;
  });

  after(async () => {
    await gw?.close();
    await openai?.close();
    await anthropic?.close();
  });

  async function call(method: string, path: string, headers: Record<string, string>, body?: string) {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as ErrorBody };
  }

  it('takes a body-less request sent with content-type application/json as having no body', async () => {
    const json = { 'content-type': 'application/json' };
    // What Python's openai sends for responses.delete.
    const deleted = await call('DELETE', '/v1/responses/resp_missing', json);
    assert.equal(deleted.status, 404, JSON.stringify(deleted.body));
    assert.equal(deleted.body.error.code, 'not_found');
    const key = await createKey(gw, { name: 'rotated', allowedModels: ['*'] });
    const rotated = await fetch(`${gw.url}/admin/keys/${key.id}/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, ...json },
    });
    assert.equal(rotated.status, 200, await rotated.text());
    const view = await admin<{ id: string }>(gw, 'POST', `/keys/${key.id}/reset-spend`);
    assert.equal(view.id, key.id, 'the test helper sends the header without a body too');
  });

  it('answers a JSON body sent as text/plain with 415 naming the content type to send', async () => {
    const plain = await call(
      'POST',
      '/v1/chat/completions',
      { 'content-type': 'text/plain' },
      JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.equal(plain.status, 415);
    assert.match(plain.body.error.message, /application\/json/);
    assert.equal(openai.requests.length, 0, 'nothing reached the upstream');
  });

  it('answers a NUL in a response id or previous_response_id with 400, not 500', async () => {
    const json = { 'content-type': 'application/json' };
    for (const path of ['/v1/responses/resp_%00x', '/v1/responses/resp_%00x/input_items']) {
      const read = await call('GET', path, {});
      assert.equal(read.status, 400, `${path}: ${JSON.stringify(read.body)}`);
      assert.equal(read.body.error.type, 'invalid_request_error');
    }
    const continued = await call(
      'POST',
      '/v1/responses',
      json,
      JSON.stringify({ model: 'gpt', input: 'hi', previous_response_id: 'resp_\u0000x' }),
    );
    assert.equal(continued.status, 400, JSON.stringify(continued.body));
  });

  it('refuses an unknown chat role with 400 before it reaches Claude', async () => {
    const res = await call(
      'POST',
      '/v1/chat/completions',
      { 'content-type': 'application/json' },
      JSON.stringify({ model: 'claude', messages: [{ role: 'wizard', content: 'hi' }] }),
    );
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.error.message, /role must be one of/);
    assert.equal(anthropic.requests.length, 0);
  });
});
