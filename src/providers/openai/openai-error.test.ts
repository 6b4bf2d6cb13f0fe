import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyOpenAIError, classifyOpenAIStreamError } from './openai-error.ts';

const body = (code: string | null, message = 'provider says no', type = 'invalid_request_error') => ({
  error: { message, type, param: null, code },
});

describe('classifyOpenAIError', () => {
  const table: Array<[string, number, unknown, string, string]> = [
    ['plain 400', 400, body(null), 'bad_request', 'invalid_request'],
    [
      'context window by code',
      400,
      body('context_length_exceeded'),
      'context_window',
      'context_length_exceeded',
    ],
    [
      'context window by wording (vLLM, no code)',
      400,
      {
        object: 'error',
        message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
        type: 'BadRequestError',
        code: 400,
      },
      'context_window',
      'context_length_exceeded',
    ],
    [
      'content policy (OpenAI images)',
      400,
      body('content_policy_violation'),
      'content_policy',
      'content_policy_violation',
    ],
    [
      'content filter (Azure)',
      400,
      {
        error: { code: 'content_filter', message: 'The response was filtered', param: 'prompt', status: 400 },
      },
      'content_policy',
      'content_policy_violation',
    ],
    ['401 is the deployment key', 401, body('invalid_api_key'), 'server', 'upstream_auth_failed'],
    ['403', 403, body(null), 'server', 'upstream_auth_failed'],
    ['404 model not found upstream', 404, body('model_not_found'), 'server', 'upstream_error'],
    ['408', 408, 'timeout', 'timeout', 'timeout'],
    ['413', 413, 'too large', 'bad_request', 'request_too_large'],
    ['429', 429, body('rate_limit_exceeded', 'slow down', 'requests'), 'rate_limit', 'rate_limit_exceeded'],
    [
      '429 insufficient_quota is the account, not a passing limit',
      429,
      body('insufficient_quota'),
      'server',
      'upstream_error',
    ],
    ['500', 500, body(null, 'oops', 'server_error'), 'server', 'upstream_error'],
    ['502 with an HTML body', 502, '<html>bad gateway</html>', 'server', 'upstream_error'],
    [
      '503: overloaded',
      503,
      body(null, 'The engine is currently overloaded, please try again later'),
      'server',
      'upstream_overloaded',
    ],
    ['504', 504, '', 'timeout', 'timeout'],
    [
      'a 5xx never becomes context_window by code',
      500,
      body('context_length_exceeded'),
      'server',
      'upstream_error',
    ],
  ];
  for (const [name, status, answer, errorClass, code] of table) {
    test(`${name}: ${status} -> ${errorClass}/${code}`, () => {
      const info = classifyOpenAIError(status, answer, {});
      assert.equal(info.errorClass, errorClass);
      assert.equal(info.code, code);
    });
  }

  test('a bad request keeps the field the upstream named and a documented code, not others', () => {
    const named = classifyOpenAIError(
      400,
      {
        error: {
          message: 'bad temperature',
          type: 'invalid_request_error',
          param: 'temperature',
          code: 'invalid_value',
        },
      },
      {},
    );
    assert.equal(named.code, 'invalid_request');
    assert.equal(named.param, 'temperature');
    assert.equal(named.upstreamCode, 'invalid_value');
    const undocumented = classifyOpenAIError(
      400,
      {
        error: { message: 'x', type: 'invalid_request_error', param: 'messages', code: 'some_internal_code' },
      },
      {},
    );
    assert.equal(undocumented.param, 'messages');
    assert.equal(undocumented.upstreamCode, undefined);
    const server = classifyOpenAIError(
      500,
      { error: { message: 'x', param: 'model', code: 'invalid_value' } },
      {},
    );
    assert.equal(server.param, undefined, 'a server failure names no field of the request');
    assert.equal(server.upstreamCode, undefined);
  });

  test("a context-window refusal keeps OpenAI's token counts", () => {
    const info = classifyOpenAIError(
      400,
      {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
      {},
    );
    assert.equal(info.code, 'context_length_exceeded');
    assert.equal(info.param, 'messages');
    assert.deepEqual(info.tokenCounts, { inputTokens: 130512, limitTokens: 128000 });
  });

  test('keeps the provider message as private detail', () => {
    assert.equal(
      classifyOpenAIError(400, body(null, 'Invalid value for temperature'), {}).providerMessage,
      'Invalid value for temperature',
    );
    assert.equal(
      classifyOpenAIError(502, 'upstream connect error', {}).providerMessage,
      'upstream connect error',
    );
  });

  test('429: retry-after-ms wins over retry-after', () => {
    const headers = { 'retry-after-ms': '1500', 'retry-after': '20' };
    assert.equal(classifyOpenAIError(429, body(null), headers).retryAfterSeconds, 1.5);
    assert.equal(classifyOpenAIError(429, body(null), { 'retry-after': '20' }).retryAfterSeconds, 20);
    assert.equal(classifyOpenAIError(429, body(null), {}).retryAfterSeconds, undefined);
  });
});

describe('classifyOpenAIStreamError', () => {
  test('by code, else by wording, else upstream_error', () => {
    assert.equal(
      classifyOpenAIStreamError('context_length_exceeded', undefined).code,
      'context_length_exceeded',
    );
    assert.equal(classifyOpenAIStreamError('rate_limit_exceeded', 'slow').errorClass, 'rate_limit');
    assert.equal(
      classifyOpenAIStreamError(undefined, 'maximum context length is 8192').code,
      'context_length_exceeded',
    );
    assert.equal(classifyOpenAIStreamError('server_error', 'boom').code, 'upstream_error');
  });
});
