import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyAnthropicError } from './anthropic-error.ts';

const body = (type: string, message = 'provider says no') => ({ type: 'error', error: { type, message } });

describe('classifyAnthropicError', () => {
  const table: Array<[number, unknown, string, string]> = [
    [400, body('invalid_request_error'), 'bad_request', 'invalid_request'],
    [
      400,
      body('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
      'context_window',
      'context_length_exceeded',
    ],
    [
      400,
      body(
        'invalid_request_error',
        'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000',
      ),
      'context_window',
      'context_length_exceeded',
    ],
    [401, body('authentication_error'), 'server', 'upstream_auth_failed'],
    [403, body('permission_error'), 'server', 'upstream_auth_failed'],
    [404, body('not_found_error'), 'server', 'upstream_error'],
    [413, body('request_too_large'), 'bad_request', 'request_too_large'],
    [429, body('rate_limit_error'), 'rate_limit', 'rate_limit_exceeded'],
    [500, body('api_error'), 'server', 'upstream_error'],
    [529, body('overloaded_error'), 'server', 'upstream_overloaded'],
    [529, 'overloaded', 'server', 'upstream_overloaded'],
    [504, 'gateway timeout', 'timeout', 'timeout'],
    [502, '<html>', 'server', 'upstream_error'],
  ];
  for (const [status, answer, errorClass, code] of table) {
    const label = typeof answer === 'string' ? answer : (answer as { error: { type: string } }).error.type;
    test(`${status} ${label} -> ${errorClass}/${code}`, () => {
      const info = classifyAnthropicError(status, answer, {});
      assert.equal(info.errorClass, errorClass);
      assert.equal(info.code, code);
    });
  }

  test('a context-window refusal keeps its token counts (numbers only), not its wording', () => {
    const info = classifyAnthropicError(
      400,
      body('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'),
      {},
    );
    assert.equal(info.code, 'context_length_exceeded');
    assert.deepEqual(info.tokenCounts, { inputTokens: 208310, limitTokens: 200000 });
  });

  test('the provider message is kept as private detail; retry-after is read', () => {
    const info = classifyAnthropicError(
      429,
      body('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
      {
        'retry-after': '12',
      },
    );
    assert.equal(info.providerMessage, 'Number of request tokens has exceeded your per-minute rate limit');
    assert.equal(info.retryAfterSeconds, 12);
  });
});
