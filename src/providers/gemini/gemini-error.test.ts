import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { classifyGeminiError } from './gemini-error.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
const body = (code: number, status: string, message: string) => ({ error: { code, status, message } });

const cases: Array<[string, number, unknown, string]> = [
  [
    'bad argument',
    400,
    body(400, 'INVALID_ARGUMENT', 'Invalid value at contents[0].role'),
    'invalid_request',
  ],
  [
    'too many input tokens',
    400,
    body(
      400,
      'INVALID_ARGUMENT',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    ),
    'context_length_exceeded',
  ],
  ['bad key', 400, fixture('error-400-api-key-invalid.json'), 'upstream_auth_failed'],
  [
    'unauthenticated',
    401,
    body(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'),
    'upstream_auth_failed',
  ],
  [
    'permission',
    403,
    body(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers."),
    'upstream_auth_failed',
  ],
  [
    'unknown model',
    404,
    body(404, 'NOT_FOUND', 'models/gemini-9 is not found for API version v1beta'),
    'upstream_error',
  ],
  ['quota', 429, fixture('error-429-retry-info.json'), 'rate_limit_exceeded'],
  [
    'billing precondition',
    400,
    body(400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.'),
    'upstream_error',
  ],
  ['internal', 500, body(500, 'INTERNAL', 'An internal error has occurred.'), 'upstream_error'],
  [
    'overloaded',
    503,
    body(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'),
    'upstream_overloaded',
  ],
  [
    'deadline',
    504,
    body(504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'),
    'timeout',
  ],
  ['html from a proxy', 502, '<html>Bad Gateway</html>', 'upstream_error'],
  ['no body, 429', 429, undefined, 'rate_limit_exceeded'],
];

for (const [name, status, errorBody, code] of cases) {
  test(`${name}: ${status} -> ${code}`, () => {
    assert.equal(classifyGeminiError(status, errorBody, {}).code, code);
  });
}

test('RetryInfo retryDelay gives the retry time; the message stays private detail', () => {
  const info = classifyGeminiError(429, fixture('error-429-retry-info.json'), { 'retry-after': '5' });
  assert.deepEqual(info, {
    errorClass: 'rate_limit',
    code: 'rate_limit_exceeded',
    retryAfterSeconds: 34,
    providerMessage: 'You exceeded your current quota, please check your plan and billing details.',
  });
});

test('without RetryInfo the Retry-After header is used', () => {
  assert.equal(
    classifyGeminiError(429, body(429, 'RESOURCE_EXHAUSTED', 'x'), { 'Retry-After': '7' }).retryAfterSeconds,
    7,
  );
});

test('an error event inside a stream (status 0) is classified by its own code and status', () => {
  assert.equal(
    classifyGeminiError(0, body(503, 'UNAVAILABLE', 'overloaded'), {}).code,
    'upstream_overloaded',
  );
  assert.equal(
    classifyGeminiError(0, { error: { code: 429, message: 'x' } }, {}).code,
    'rate_limit_exceeded',
  );
});
