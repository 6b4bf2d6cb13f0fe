import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { FakeReply } from '../fakes/fake-responder.ts';
import { providerWording, type RecordedProvider, recordedReply, recordedText } from '../fakes/recorded.ts';
import {
  answerFirstFailure,
  anthropicClient,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

interface Expected {
  status: number;
  code: string;
  type: string;
}

const USER = [{ role: 'user' as const, content: 'one two three four five' }];

/** Fails the test when the provider's wording is anywhere in what the client got. */
function assertNoWording(
  seen: { error: unknown; headers: Headers | undefined; message: string },
  wording: string,
) {
  assert.ok(
    !JSON.stringify(seen.error).includes(wording),
    `provider wording leaked: ${JSON.stringify(seen.error)}`,
  );
  assert.ok(!seen.message.includes(wording), `provider wording leaked: ${seen.message}`);
  for (const [name, value] of seen.headers ?? [])
    assert.ok(!value.includes(wording), `header ${name} leaked`);
}

/**
 * Recorded provider error answers (src/providers/<provider>/fixtures/*.http) through the official
 * SDKs: each mapped by its provider's table to SPEC.md's class and code, in the endpoint's shape,
 * with the gateway's generic message. Retries and cooldowns are off so each recorded error is the
 * call's answer.
 */
describe('upstream errors classified per provider, without provider wording', () => {
  let up: Upstreams;
  let openai: OpenAI;
  let anthropic: Anthropic;
  before(async () => {
    up = await startUpstreams();
    await answerFirstFailure(up.gw);
    openai = openaiClient(up.gw, up.key);
    anthropic = anthropicClient(up.gw, up.key);
  });
  beforeEach(() => {
    up.openai.reset();
    up.anthropic.reset();
    up.gemini.reset();
    up.bedrock.reset();
  });
  after(() => up?.close());

  /** A Chat call on `model` failing with the upstream's `reply`, as the openai client sees it. */
  async function chatFails(model: string, reply: FakeReply, expected: Expected) {
    const error = await rejection(openai.chat.completions.create({ model, messages: USER }));
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.deepEqual([error.status, error.code, error.type], [expected.status, expected.code, expected.type]);
    assertNoWording(error, providerWording(reply));
    return error;
  }

  const enqueue = (fake: { enqueue(reply: FakeReply): void }, provider: RecordedProvider, name: string) => {
    const reply = recordedReply(provider, name);
    fake.enqueue(reply);
    return reply;
  };

  const openaiCases: Array<[string, Expected]> = [
    [
      'openai-400-context-length-exceeded.http',
      { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' },
    ],
    [
      'openai-400-content-policy-violation.http',
      { status: 400, code: 'content_policy_violation', type: 'invalid_request_error' },
    ],
    [
      'vllm-400-context-window-without-code.http',
      { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' },
    ],
    [
      'openai-429-rate-limit-exceeded.http',
      { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' },
    ],
    ['openai-401-invalid-api-key.http', { status: 502, code: 'upstream_auth_failed', type: 'server_error' }],
    ['openai-500-server-error.http', { status: 502, code: 'upstream_error', type: 'server_error' }],
  ];
  for (const [fixture, expected] of openaiCases) {
    it(`openai: ${fixture} -> ${expected.status} ${expected.code}`, async () => {
      await chatFails('gpt', enqueue(up.openai, 'openai', fixture), expected);
    });
  }

  it('openai: openai-429-rate-limit-exceeded.http carries its Retry-After', async () => {
    const reply = enqueue(up.openai, 'openai', 'openai-429-rate-limit-exceeded.http');
    const error = await chatFails('gpt', reply, {
      status: 429,
      code: 'rate_limit_exceeded',
      type: 'rate_limit_error',
    });
    assert.equal(error.headers?.get('retry-after'), reply.headers?.['retry-after']);
  });

  const anthropicCases: Array<[string, Expected, { status: number; type: string }]> = [
    [
      'anthropic-400-prompt-too-long.http',
      { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' },
      { status: 400, type: 'invalid_request_error' },
    ],
    [
      'anthropic-529-overloaded-error.http',
      { status: 503, code: 'upstream_overloaded', type: 'server_error' },
      // Anthropic answers an overload 529 and so does the gateway, to Anthropic clients.
      { status: 529, type: 'overloaded_error' },
    ],
    [
      'anthropic-429-rate-limit-error.http',
      { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' },
      { status: 429, type: 'rate_limit_error' },
    ],
    [
      'anthropic-401-authentication-error.http',
      { status: 502, code: 'upstream_auth_failed', type: 'server_error' },
      { status: 502, type: 'api_error' },
    ],
  ];
  for (const [fixture, expected, messages] of anthropicCases) {
    it(`anthropic: ${fixture} -> ${expected.status} ${expected.code}, ${messages.status} ${messages.type} on /v1/messages`, async () => {
      await chatFails('claude', enqueue(up.anthropic, 'anthropic', fixture), expected);
      const reply = enqueue(up.anthropic, 'anthropic', fixture);
      const error = await rejection(
        anthropic.messages.create({ model: 'claude', max_tokens: 10, messages: USER }),
      );
      assert.ok(error instanceof Anthropic.APIError, String(error));
      assert.equal(error.status, messages.status);
      assert.equal((error.error as { error: { type: string } }).error.type, messages.type);
      // A context-window refusal repeats Anthropic's own sentence, which Claude Code matches (honest-errors.test.ts).
      if (messages.status !== 400) assertNoWording(error, providerWording(reply));
    });
  }

  it('gemini: error-429-retry-info.json -> 429, error-400-api-key-invalid.json -> 502 upstream_auth_failed', async () => {
    for (const [status, fixture, expected] of [
      [
        429,
        'error-429-retry-info.json',
        { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' },
      ],
      [
        400,
        'error-400-api-key-invalid.json',
        { status: 502, code: 'upstream_auth_failed', type: 'server_error' },
      ],
    ] as const) {
      const reply = { status, body: JSON.parse(recordedText('gemini', fixture)) as unknown };
      up.gemini.enqueueAnswer(reply);
      await chatFails('gemini', reply, expected);
    }
  });

  it('bedrock: bedrock-429-throttling-exception.http -> 429, bedrock-400-input-too-long.http -> context_length_exceeded', async () => {
    await chatFails('nova', enqueue(up.bedrock, 'bedrock', 'bedrock-429-throttling-exception.http'), {
      status: 429,
      code: 'rate_limit_exceeded',
      type: 'rate_limit_error',
    });
    await chatFails('nova', enqueue(up.bedrock, 'bedrock', 'bedrock-400-input-too-long.http'), {
      status: 400,
      code: 'context_length_exceeded',
      type: 'invalid_request_error',
    });
  });

  it('openai-stream-server-error-chunk.sse mid-stream ends the stream in an upstream_error the SDK raises, no provider wording', async () => {
    const raw = recordedText('openai', 'openai-stream-server-error-chunk.sse');
    up.openai.faultNextStream({ afterEvents: 3, action: { raw } });
    const stream = await openai.chat.completions.create({ model: 'gpt', messages: USER, stream: true });
    const error = await rejection(
      (async () => {
        for await (const _chunk of stream);
      })(),
    );
    assert.ok(error instanceof OpenAI.APIError, String(error));
    assert.deepEqual([error.type, error.code], ['server_error', 'upstream_error']);
    assert.ok(!JSON.stringify(error.error).includes('Sorry about that'));
  });

  it('openai-stream-server-error-chunk.sse ends a translated Messages stream with an api_error event', async () => {
    const raw = recordedText('openai', 'openai-stream-server-error-chunk.sse');
    up.openai.faultNextStream({ afterEvents: 3, action: { raw } });
    const stream = anthropic.messages.stream({ model: 'gpt', max_tokens: 20, messages: USER });
    const error = await rejection(
      (async () => {
        for await (const _event of stream);
      })(),
    );
    assert.ok(error instanceof Anthropic.APIError, String(error));
    const body = error.error as { type: string; error: { type: string; message: string } };
    assert.deepEqual([body.type, body.error.type], ['error', 'api_error']);
    assert.ok(!body.error.message.includes('Sorry about that'));
  });
});
