import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createKey, createOpenAIDeployment } from '../helpers/admin-api.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const APP = 'https://app.example.com';
const UPSTREAM_KEY = 'sk-upstream-cors-0001';

/** What a browser sends before a cross-origin POST with an Authorization header and a JSON body. */
function preflight(gw: TestGateway, path: string, origin = APP): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

function chat(gw: TestGateway, key: string | undefined): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      origin: APP,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('CORS_ORIGINS: browser clients on /v1', () => {
  let gw: TestGateway;
  let fake: OpenAIFake;
  let key: string;
  before(async () => {
    fake = await new OpenAIFake({ apiKey: UPSTREAM_KEY }).start();
    gw = await startTestGateway({ env: { CORS_ORIGINS: `${APP}, http://localhost:5173` } });
    await createOpenAIDeployment(gw, { publicModel: 'gpt', baseUrl: fake.baseUrl, apiKey: UPSTREAM_KEY });
    key = (await createKey(gw, { name: 'browser', allowedModels: ['*'], rpmLimit: 100 })).key;
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('answers a preflight before authentication, echoing the requested headers', async () => {
    const answer = await preflight(gw, '/v1/chat/completions');
    assert.equal(answer.status, 204);
    assert.equal(answer.headers.get('access-control-allow-origin'), APP);
    assert.match(answer.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/);
    assert.equal(answer.headers.get('access-control-allow-headers'), 'authorization, content-type');
    assert.equal(answer.headers.get('vary'), 'Origin');
  });

  it('lets the browser read the answer and its request id and rate-limit headers', async () => {
    const answer = await chat(gw, key);
    assert.equal(answer.status, 200, await answer.clone().text());
    assert.equal(answer.headers.get('access-control-allow-origin'), APP);
    const exposed = (answer.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    for (const name of [
      'x-request-id',
      'x-ratelimit-remaining-requests',
      'x-ratelimit-reset-tokens',
      'retry-after',
    ]) {
      assert.ok(exposed.includes(name), `${name} is exposed`);
    }
    assert.ok(answer.headers.get('x-ratelimit-remaining-requests'), 'the limited key gets the header');
  });

  it('lets the browser read a refusal (401) of an allowed origin', async () => {
    const answer = await chat(gw, undefined);
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('access-control-allow-origin'), APP);
  });

  it('refuses a preflight from an origin not listed: authentication runs, no CORS headers', async () => {
    const answer = await preflight(gw, '/v1/chat/completions', 'https://evil.example.net');
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
  });

  it('never opens /admin to a browser', async () => {
    const answer = await preflight(gw, '/admin/deployments');
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
    const listed = await fetch(`${gw.url}/admin/deployments`, {
      headers: { origin: APP, authorization: `Bearer ${gw.masterKey}` },
    });
    assert.equal(listed.status, 200);
    assert.equal(listed.headers.get('access-control-allow-origin'), null);
  });
});

describe('CORS is off without CORS_ORIGINS', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ redis: false });
  });
  after(() => gw?.close());

  it('treats a preflight as any unauthenticated call', async () => {
    const answer = await preflight(gw, '/v1/chat/completions');
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
  });
});
