import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  admin,
  chat,
  createDeployment,
  errorCode,
  modelName,
  putRouterSettings,
  upstreamError,
} from './support.ts';

type Chains = Partial<Record<'general' | 'context_window' | 'content_policy', Record<string, string[]>>>;

describe('fallback chains', () => {
  let gw: TestGateway;
  let primary: OpenAIFake;
  let secondary: OpenAIFake;
  before(async () => {
    primary = await new OpenAIFake({ contextWindow: 50 }).start();
    secondary = await new OpenAIFake().start();
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
    await primary.close();
    await secondary.close();
  });
  beforeEach(() => {
    primary.reset();
    secondary.reset();
  });

  /** A model on the primary fake, a fallback on the secondary, and the chains between them. */
  async function pair(chains: (a: string, b: string) => Chains, cooldown?: object) {
    const a = modelName('a');
    const b = modelName('b');
    await createDeployment(gw, { publicModel: a, baseUrl: primary.baseUrl });
    const fallbackId = await createDeployment(gw, { publicModel: b, baseUrl: secondary.baseUrl });
    await putRouterSettings(gw, { fallbacks: chains(a, b), ...(cooldown ? { cooldown } : {}) });
    return { a, b, fallbackId };
  }

  it('general: reroutes once the pool failed, and says which model served', async () => {
    const { a, b, fallbackId } = await pair((a, b) => ({ general: { [a]: [b] } }));
    primary.enqueue({ status: 500, body: upstreamError(null) });
    const answer = await chat(gw, a);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-switchyard-fallback-model'), b);
    assert.equal(answer.headers.get('x-switchyard-deployment'), fallbackId);
    assert.equal(answer.headers.get('x-switchyard-attempts'), '2');
    assert.equal(answer.body.model, a, 'the answer names the model the client asked for');
    assert.equal(primary.requests.length, 1);
    assert.equal(secondary.requests.length, 1);
  });

  it('general: reroutes deployments_in_cooldown without calling the cooling deployment', async () => {
    const cooldown = { failureThreshold: 1, windowMs: 60_000, durationMs: 60_000 };
    const { a, b } = await pair((a, b) => ({ general: { [a]: [b] } }), cooldown);
    primary.enqueue({ status: 503, body: upstreamError(null) });
    assert.equal((await chat(gw, a)).status, 200, 'the failure cools the deployment, the fallback serves');
    const answer = await chat(gw, a);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-switchyard-fallback-model'), b);
    assert.equal(answer.headers.get('x-switchyard-attempts'), '1');
    assert.equal(primary.requests.length, 1, 'the cooling deployment was not called again');
  });

  it("context_window: reroutes the upstream's context_length_exceeded", async () => {
    const { a, b } = await pair((a, b) => ({ general: {}, context_window: { [a]: [b] } }));
    const long = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
    const answer = await chat(gw, a, { content: long });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-switchyard-fallback-model'), b);
    assert.equal(primary.requests.length, 1);
  });

  it('context_window: reroutes a pre-flight refusal, before any upstream call, to a model with room', async () => {
    const small = modelName('small');
    const large = modelName('large');
    // gpt-4 has a context window of 8,192 tokens in the catalog; gpt-4o-mini 128,000.
    await createDeployment(gw, { publicModel: small, baseUrl: primary.baseUrl, upstreamModel: 'gpt-4' });
    await createDeployment(gw, { publicModel: large, baseUrl: secondary.baseUrl });
    const long = 'lorem ipsum dolor sit amet '.repeat(3_000);
    await putRouterSettings(gw, { fallbacks: { context_window: {} } });
    const refused = await chat(gw, small, { content: long });
    assert.equal(refused.status, 400);
    assert.equal(errorCode(refused), 'context_length_exceeded');

    await putRouterSettings(gw, { fallbacks: { context_window: { [small]: [large] } } });
    const answer = await chat(gw, small, { content: long });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-switchyard-fallback-model'), large);
    assert.equal(answer.headers.get('x-switchyard-attempts'), '1');
    assert.equal(primary.requests.length, 0, 'the small model was never called');
  });

  it('content_policy: reroutes a content policy refusal', async () => {
    const { a, b } = await pair((a, b) => ({ general: { [a]: ['nowhere'] }, content_policy: { [a]: [b] } }));
    primary.enqueue({
      status: 400,
      body: upstreamError('content_policy_violation', 'invalid_request_error'),
    });
    const answer = await chat(gw, a);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-switchyard-fallback-model'), b);
  });

  it('answers no_deployments_available with the status of the last failure once the chain is exhausted', async () => {
    const { a } = await pair((a, b) => ({ general: { [a]: [b] } }));
    primary.enqueue({ status: 500, body: upstreamError(null) });
    secondary.enqueue({
      status: 429,
      body: upstreamError('rate_limit_exceeded', 'requests'),
      headers: { 'retry-after': '7' },
    });
    const answer = await chat(gw, a);
    assert.equal(answer.status, 429);
    assert.equal(errorCode(answer), 'no_deployments_available');
    assert.equal((answer.body.error as { type: string }).type, 'rate_limit_error');
    assert.equal(answer.headers.get('retry-after'), '7');
    assert.equal(answer.headers.get('x-switchyard-attempts'), '2');
    assert.equal(answer.headers.get('x-switchyard-deployment'), null);
  });

  it('answers a failure as it is when the model has no chain', async () => {
    const { a } = await pair(() => ({}));
    primary.enqueue({ status: 500, body: upstreamError(null) });
    const answer = await chat(gw, a);
    assert.equal(answer.status, 502);
    assert.equal(errorCode(answer), 'upstream_error');
  });

  it("holds each fallback model to the calling key's scope", async () => {
    const { a, b } = await pair((a, b) => ({ general: { [a]: [b, 'c-model'] } }));
    const c = 'c-model';
    const cId = await createDeployment(gw, { publicModel: c, baseUrl: secondary.baseUrl });
    const key = await admin<{ key: string }>(gw, 'POST', '/keys', { name: 'scoped', allowedModels: [a, c] });
    primary.enqueue({ status: 500, body: upstreamError(null) });
    const answer = await chat(gw, a, { token: key.key });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-switchyard-fallback-model'), c);
    assert.equal(answer.headers.get('x-switchyard-deployment'), cId);
    assert.equal(secondary.requests.length, 1, `${b} is outside the key's scope and was passed over`);

    primary.enqueue({ status: 500, body: upstreamError(null) });
    const onlyA = await admin<{ key: string }>(gw, 'POST', '/keys', { name: 'only-a', allowedModels: [a] });
    const refused = await chat(gw, a, { token: onlyA.key });
    assert.equal(refused.status, 502);
    assert.equal(errorCode(refused), 'no_deployments_available');
  });
});
