import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bedrockExceptionName, classifyBedrockError, classifyBedrockFailure } from './bedrock-error.ts';

const cases: Array<[string, number, string | undefined, string, string]> = [
  // [case, status, x-amzn-errortype, message, expected code]
  [
    'throttling',
    429,
    'ThrottlingException',
    'Too many requests, please wait before trying again.',
    'rate_limit_exceeded',
  ],
  ['quota', 400, 'ServiceQuotaExceededException', 'quota', 'rate_limit_exceeded'],
  [
    'validation',
    400,
    'ValidationException',
    'Malformed input request: #: required key [messages] not found',
    'invalid_request',
  ],
  [
    'input too long',
    400,
    'ValidationException',
    'Input is too long for requested model.',
    'context_length_exceeded',
  ],
  [
    'content filter',
    400,
    'ValidationException',
    'The prompt was blocked by content filters.',
    'content_policy_violation',
  ],
  [
    'access denied',
    403,
    'AccessDeniedException',
    'You do not have access to the model.',
    'upstream_auth_failed',
  ],
  [
    'bad key',
    403,
    'UnrecognizedClientException',
    'The security token included in the request is invalid.',
    'upstream_auth_failed',
  ],
  [
    'bad signature',
    403,
    'InvalidSignatureException',
    'The request signature we calculated does not match.',
    'upstream_auth_failed',
  ],
  ['not found', 404, 'ResourceNotFoundException', 'Model not found.', 'upstream_error'],
  ['unavailable', 503, 'ServiceUnavailableException', 'Service unavailable.', 'upstream_overloaded'],
  ['internal', 500, 'InternalServerException', 'Internal error.', 'upstream_error'],
  ['model error', 424, 'ModelErrorException', 'The model failed.', 'upstream_error'],
  ['model timeout', 408, 'ModelTimeoutException', 'Model timed out.', 'timeout'],
  ['no header, 429', 429, undefined, 'slow down', 'rate_limit_exceeded'],
  ['no header, 400', 400, undefined, 'nope', 'invalid_request'],
  ['no header, 502', 502, undefined, 'bad gateway', 'upstream_error'],
];

for (const [name, status, errorType, message, code] of cases) {
  test(`${name}: ${status} ${errorType ?? '(no type)'} -> ${code}`, () => {
    const headers: Record<string, string> = errorType
      ? { 'x-amzn-errortype': `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/` }
      : {};
    const info = classifyBedrockError(status, { message }, headers);
    assert.equal(info.code, code);
    assert.equal(info.providerMessage, message);
  });
}

test('the exception name is read from the body __type when the header is absent', () => {
  const info = classifyBedrockError(
    400,
    { __type: 'com.amazon.coral.service#ThrottlingException', Message: 'x' },
    {},
  );
  assert.equal(info.code, 'rate_limit_exceeded');
  assert.equal(info.errorClass, 'rate_limit');
  assert.equal(info.providerMessage, 'x');
});

test('Retry-After is carried when Bedrock sends it', () => {
  const info = classifyBedrockError(
    429,
    { message: 'x' },
    { 'X-Amzn-ErrorType': 'ThrottlingException', 'Retry-After': '3' },
  );
  assert.equal(info.retryAfterSeconds, 3);
});

test('stream exceptions use lowerCamelCase names and no status', () => {
  assert.equal(bedrockExceptionName('modelStreamErrorException'), 'ModelStreamErrorException');
  assert.equal(
    classifyBedrockFailure({ status: 0, errorType: 'throttlingException', message: 'x' }).code,
    'rate_limit_exceeded',
  );
  assert.equal(
    classifyBedrockFailure({ status: 0, errorType: 'somethingElse', message: undefined }).code,
    'upstream_error',
  );
  assert.equal(
    classifyBedrockFailure({ status: 0, errorType: 'toString', message: undefined }).code,
    'upstream_error',
  );
});

test('a text body is kept as the provider message', () => {
  assert.equal(classifyBedrockError(500, 'upstream exploded', {}).providerMessage, 'upstream exploded');
});
