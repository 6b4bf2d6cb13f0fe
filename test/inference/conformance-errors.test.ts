import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { recordedReply } from '../fakes/recorded.ts';
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

/**
 * A recorded OpenAI error answer, Azure's answer for the same class, the OpenAI-shape status and
 * code they become, and the Anthropic error type.
 */
const CASES = [
  [
    'openai-400-content-policy-violation.http',
    'azure-400-content-filter.http',
    400,
    'content_policy_violation',
    'invalid_request_error',
  ],
  [
    'openai-401-invalid-api-key.http',
    'azure-401-access-denied.http',
    502,
    'upstream_auth_failed',
    'api_error',
  ],
  [
    'openai-429-rate-limit-exceeded.http',
    'azure-429-rate-limit-retry-after.http',
    429,
    'rate_limit_exceeded',
    'rate_limit_error',
  ],
  [
    'openai-500-server-error.http',
    'azure-500-internal-server-error.http',
    502,
    'upstream_error',
    'api_error',
  ],
  [
    'openai-413-request-too-large.http',
    'azure-413-request-too-large.http',
    413,
    'request_too_large',
    'request_too_large',
  ],
] as const;

/**
 * The error rows of the translated columns of the conformance matrix (docs/providers.md): an
 * OpenAI-format upstream's recorded refusal (src/providers/{openai,azure,anthropic,bedrock}/fixtures/*.http) reaches a Responses client (Responses -> Chat), a Chat client of
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

  for (const [openaiFixture, azureFixture, status, code, anthropicType] of CASES) {
    it(`${openaiFixture}: Responses -> Chat answers ${status} ${code}`, async () => {
      up.openai.enqueue(recordedReply('openai', openaiFixture));
      const error = await rejection(openai.responses.create({ model: 'compat', input: 'hi' }));
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.deepEqual([error.status, error.code], [status, code]);
    });
    it(`${azureFixture}: Azure answers ${status} ${code}, as OpenAI native does`, async () => {
      up.openai.enqueue(recordedReply('azure', azureFixture));
      const error = await rejection(
        openai.chat.completions.create({ model: 'azure-gpt', messages: [{ role: 'user', content: 'hi' }] }),
      );
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.deepEqual([error.status, error.code], [status, code]);
    });
    it(`${openaiFixture}: Messages -> OpenAI answers ${status} ${anthropicType}`, async () => {
      up.openai.enqueue(recordedReply('openai', openaiFixture));
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

  it('bedrock-413-request-too-large.http reaches the client as 413 request_too_large', async () => {
    up.bedrock.enqueueAnswer(recordedReply('bedrock', 'bedrock-413-request-too-large.http'));
    const error = await rejection(
      openai.chat.completions.create({ model: 'nova', messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.deepEqual([error.status, error.code], [413, 'request_too_large']);
  });

  it('bad request: anthropic-400-invalid-request.http is invalid_request for Chat clients of Claude; it and openai-400-invalid-messages.http are invalid_request_error for Anthropic clients', async () => {
    const anthropicRefusal = recordedReply('anthropic', 'anthropic-400-invalid-request.http');
    up.anthropic.enqueue(anthropicRefusal);
    const chat = await rejection(
      openai.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.ok(chat instanceof OpenAI.BadRequestError, String(chat));
    assert.equal(chat.code, 'invalid_request');
    const messages = [{ role: 'user' as const, content: 'hi' }];
    for (const model of ['claude', 'gpt']) {
      if (model === 'claude') up.anthropic.enqueue(anthropicRefusal);
      else up.openai.enqueue(recordedReply('openai', 'openai-400-invalid-messages.http'));
      const error = await rejection(anthropic.messages.create({ model, max_tokens: 20, messages }));
      assert.ok(error instanceof Anthropic.BadRequestError, `${model}: ${String(error)}`);
      assert.equal((error.error as { error: { type: string } }).error.type, 'invalid_request_error');
    }
  });
});
