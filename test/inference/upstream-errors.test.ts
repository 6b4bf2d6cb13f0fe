import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { answerFirstFailure, post, startUpstreams, type Upstreams } from './support.ts';

/** Provider wording every injected error carries; no /v1 answer may repeat it (SPEC.md, Errors). */
const SENTINEL = 'zebra-sentinel-7731';

interface Expected {
  status: number;
  code: string;
  type: string;
}

/**
 * Provider error bodies through HTTP: each mapped by its provider's table to SPEC.md's class and
 * code, rendered in the endpoint's shape with the gateway's generic message. Retries and cooldowns
 * are switched off so each injected error is the call's answer.
 */
describe('upstream errors classified per provider, without provider wording', () => {
  let up: Upstreams;
  before(async () => {
    up = await startUpstreams();
    await answerFirstFailure(up.gw);
  });
  beforeEach(() => {
    up.openai.reset();
    up.anthropic.reset();
    up.gemini.reset();
    up.bedrock.reset();
  });
  after(() => up?.close());

  async function chatFails(model: string, expected: Expected, path = '/chat/completions'): Promise<void> {
    const body =
      path === '/messages'
        ? { model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }
        : { model, messages: [{ role: 'user', content: 'hi' }] };
    const answer = await post(up.gw, up.key, path, body);
    assert.equal(answer.status, expected.status, answer.text);
    assert.ok(!answer.text.includes(SENTINEL), `provider wording leaked: ${answer.text}`);
    for (const [name, value] of answer.headers) assert.ok(!value.includes(SENTINEL), `header ${name} leaked`);
    const parsed = answer.json() as { error: { code?: string; type: string } };
    assert.equal(parsed.error.type, expected.type);
    if (path !== '/messages') assert.equal(parsed.error.code, expected.code);
  }

  const openaiCases: Array<[string, number, Record<string, unknown>, Expected]> = [
    [
      'context_length_exceeded',
      400,
      { message: `This model's maximum context length is 10 (${SENTINEL})`, code: 'context_length_exceeded' },
      { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' },
    ],
    [
      'content_policy_violation',
      400,
      { message: `Your request was rejected (${SENTINEL})`, code: 'content_policy_violation' },
      { status: 400, code: 'content_policy_violation', type: 'invalid_request_error' },
    ],
    [
      'a compatible server context message without a code',
      400,
      { message: `prompt is too long for ${SENTINEL}`, code: null },
      { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' },
    ],
    [
      'rate limit',
      429,
      { message: `Rate limit reached for ${SENTINEL}`, code: 'rate_limit_exceeded', type: 'requests' },
      { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' },
    ],
    [
      'a rejected upstream key',
      401,
      { message: `Incorrect API key provided: ${SENTINEL}`, code: 'invalid_api_key' },
      { status: 502, code: 'upstream_auth_failed', type: 'server_error' },
    ],
    [
      'a server error',
      500,
      { message: `The server had an error (${SENTINEL})`, type: 'server_error', code: null },
      { status: 502, code: 'upstream_error', type: 'server_error' },
    ],
  ];
  for (const [name, status, error, expected] of openaiCases) {
    it(`openai: ${name} -> ${expected.status} ${expected.code}`, async () => {
      up.openai.enqueue({
        status,
        body: { error: { type: 'invalid_request_error', param: null, ...error } },
        headers: { 'x-request-id': `req_${SENTINEL}`, 'retry-after': '3' },
      });
      await chatFails('gpt', expected);
    });
  }

  it('openai: carries a 429 Retry-After of its own', async () => {
    up.openai.enqueue({
      status: 429,
      body: { error: { message: SENTINEL, type: 'requests', code: 'rate_limit_exceeded', param: null } },
      headers: { 'retry-after': '7' },
    });
    const answer = await post(up.gw, up.key, '/chat/completions', {
      model: 'gpt',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(answer.status, 429);
    assert.equal(answer.headers.get('retry-after'), '7');
  });

  const anthropicCases: Array<[string, number, string, Expected]> = [
    [
      'prompt is too long',
      400,
      'invalid_request_error',
      { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' },
    ],
    [
      'overloaded',
      529,
      'overloaded_error',
      { status: 503, code: 'upstream_overloaded', type: 'server_error' },
    ],
    [
      'rate limited',
      429,
      'rate_limit_error',
      { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' },
    ],
    [
      'a rejected key',
      401,
      'authentication_error',
      { status: 502, code: 'upstream_auth_failed', type: 'server_error' },
    ],
  ];
  for (const [name, status, type, expected] of anthropicCases) {
    it(`anthropic: ${name} -> ${expected.status} ${expected.code} (chat and messages shapes)`, async () => {
      const message = status === 400 ? `prompt is too long: ${SENTINEL}` : `${type}: ${SENTINEL}`;
      up.anthropic.enqueue({ status, body: { type: 'error', error: { type, message } } });
      await chatFails('claude', expected);
      up.anthropic.enqueue({ status, body: { type: 'error', error: { type, message } } });
      const anthropicType: Record<string, string> = {
        invalid_request_error: 'invalid_request_error',
        server_error: type === 'overloaded_error' ? 'overloaded_error' : 'api_error',
        rate_limit_error: 'rate_limit_error',
      };
      // Anthropic answers an overload 529 and so does the gateway, to Anthropic clients.
      const messagesStatus = type === 'overloaded_error' ? 529 : expected.status;
      await chatFails(
        'claude',
        { ...expected, status: messagesStatus, type: anthropicType[expected.type] },
        '/messages',
      );
    });
  }

  it('gemini: RESOURCE_EXHAUSTED -> 429, API_KEY_INVALID -> 502 upstream_auth_failed', async () => {
    up.gemini.enqueueAnswer({
      status: 429,
      body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: `Quota exceeded ${SENTINEL}` } },
    });
    await chatFails('gemini', { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    up.gemini.enqueueAnswer({
      status: 400,
      body: {
        error: {
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: `API key not valid ${SENTINEL}`,
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
        },
      },
    });
    await chatFails('gemini', { status: 502, code: 'upstream_auth_failed', type: 'server_error' });
  });

  it('bedrock: ThrottlingException -> 429, a too-long input -> context_length_exceeded', async () => {
    const errorType = (name: string) => ({
      'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    });
    up.bedrock.enqueueAnswer({
      status: 429,
      body: { message: `Too many requests ${SENTINEL}` },
      headers: errorType('ThrottlingException'),
    });
    await chatFails('nova', { status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    up.bedrock.enqueueAnswer({
      status: 400,
      body: { message: `Input is too long for requested model ${SENTINEL}` },
      headers: errorType('ValidationException'),
    });
    await chatFails('nova', { status: 400, code: 'context_length_exceeded', type: 'invalid_request_error' });
  });

  it('ends a stream broken mid-way with an error event in the OpenAI shape, no provider wording', async () => {
    up.openai.eventDelayMs = 20;
    up.openai.faultNextStream({
      afterEvents: 3,
      action: { raw: `data: ${JSON.stringify({ error: { message: SENTINEL, type: 'server_error' } })}\n\n` },
    });
    const answer = await post(up.gw, up.key, '/chat/completions', {
      model: 'gpt',
      messages: [{ role: 'user', content: 'one two three four five' }],
      stream: true,
    });
    assert.equal(answer.status, 200);
    assert.ok(!answer.text.includes(SENTINEL));
    const events = answer.text.trim().split('\n\n');
    const last = JSON.parse(events.at(-1)!.replace(/^data: /, '')) as {
      error: { type: string; code: string };
    };
    assert.equal(last.error.type, 'server_error');
    assert.equal(last.error.code, 'upstream_error');
  });

  it('ends a broken Messages stream with an Anthropic error event', async () => {
    up.openai.eventDelayMs = 20;
    up.openai.faultNextStream({
      afterEvents: 3,
      action: { raw: `data: ${JSON.stringify({ error: { message: SENTINEL, type: 'server_error' } })}\n\n` },
    });
    const answer = await post(up.gw, up.key, '/messages', {
      model: 'gpt',
      max_tokens: 20,
      stream: true,
      messages: [{ role: 'user', content: 'one two three four five' }],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.ok(!answer.text.includes(SENTINEL));
    const last = answer.text.trim().split('\n\n').at(-1)!;
    assert.match(last, /^event: error\ndata: /);
    const data = JSON.parse(last.split('\ndata: ')[1]) as { type: string; error: { type: string } };
    assert.equal(data.type, 'error');
    assert.equal(data.error.type, 'api_error');
  });
});
