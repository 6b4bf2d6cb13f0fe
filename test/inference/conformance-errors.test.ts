import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  answerFirstFailure,
  anthropicClient,
  createDeployment,
  OPENAI_UPSTREAM_KEY,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

/** An OpenAI-format upstream error, its OpenAI-shape answer, and its Anthropic error type. */
const CASES = [
  [
    'content policy',
    400,
    'content_policy_violation',
    400,
    'content_policy_violation',
    'invalid_request_error',
  ],
  ['rejected key', 401, 'invalid_api_key', 502, 'upstream_auth_failed', 'api_error'],
  ['rate limit', 429, 'rate_limit_exceeded', 429, 'rate_limit_exceeded', 'rate_limit_error'],
  ['server error', 500, null, 502, 'upstream_error', 'api_error'],
  ['request too large', 413, null, 413, 'request_too_large', 'request_too_large'],
] as const;

/**
 * The error rows of the translated columns of the conformance matrix (docs/providers.md): an
 * OpenAI-format upstream's refusal reaches a Responses client (Responses -> Chat), a Chat client of
 * an Azure deployment and an Anthropic client (Messages -> OpenAI) classified, in the client's shape, through the official SDKs.
 */
describe('conformance: errors through Azure and the Responses and Messages translations', () => {
  let up: Upstreams;
  let openai: OpenAI;
  let anthropic: Anthropic;
  before(async () => {
    up = await startUpstreams();
    await createDeployment(up.gw, {
      publicModel: 'azure-gpt',
      provider: 'azure',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: up.openai.url,
      apiKey: OPENAI_UPSTREAM_KEY,
    });
    await answerFirstFailure(up.gw);
    openai = openaiClient(up.gw, up.key);
    anthropic = anthropicClient(up.gw, up.key);
  });
  beforeEach(() => up.openai.reset());
  after(() => up?.close());

  for (const [name, upstreamStatus, upstreamCode, status, code, anthropicType] of CASES) {
    const failure = {
      status: upstreamStatus,
      body: { error: { message: 'x', type: 'invalid_request_error', param: null, code: upstreamCode } },
    };
    it(`${name}: Responses -> Chat answers ${status} ${code}`, async () => {
      up.openai.enqueue(failure);
      const error = await rejection(openai.responses.create({ model: 'compat', input: 'hi' }));
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.deepEqual([error.status, error.code], [status, code]);
    });
    it(`${name}: Azure answers ${status} ${code}, as OpenAI native does`, async () => {
      up.openai.enqueue(failure);
      const error = await rejection(
        openai.chat.completions.create({ model: 'azure-gpt', messages: [{ role: 'user', content: 'hi' }] }),
      );
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.deepEqual([error.status, error.code], [status, code]);
    });
    it(`${name}: Messages -> OpenAI answers ${status} ${anthropicType}`, async () => {
      up.openai.enqueue(failure);
      const error = await rejection(
        anthropic.messages.create({
          model: 'gpt',
          max_tokens: 20,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      assert.ok(error instanceof Anthropic.APIError, String(error));
      assert.equal(error.status, status);
      assert.equal((error.error as { error: { type: string } }).error.type, anthropicType);
    });
  }

  it('request too large: a Bedrock 413 reaches the client as 413 request_too_large', async () => {
    up.bedrock.enqueueAnswer({
      status: 413,
      body: { message: 'Request entity too large' },
    });
    const error = await rejection(
      openai.chat.completions.create({ model: 'nova', messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.deepEqual([error.status, error.code], [413, 'request_too_large']);
  });

  it('bad request: an upstream 400 is invalid_request for Chat clients of Claude, invalid_request_error for Anthropic clients of OpenAI and Claude', async () => {
    const anthropicRefusal = {
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.0: bad' } },
    };
    up.anthropic.enqueue(anthropicRefusal);
    const chat = await rejection(
      openai.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.ok(chat instanceof OpenAI.BadRequestError, String(chat));
    assert.equal(chat.code, 'invalid_request');
    const messages = [{ role: 'user' as const, content: 'hi' }];
    for (const model of ['claude', 'gpt']) {
      if (model === 'claude') up.anthropic.enqueue(anthropicRefusal);
      else {
        up.openai.enqueue({
          status: 400,
          body: { error: { message: 'bad', type: 'invalid_request_error', param: 'messages', code: null } },
        });
      }
      const error = await rejection(anthropic.messages.create({ model, max_tokens: 20, messages }));
      assert.ok(error instanceof Anthropic.BadRequestError, `${model}: ${String(error)}`);
      assert.equal((error.error as { error: { type: string } }).error.type, 'invalid_request_error');
    }
  });
});
