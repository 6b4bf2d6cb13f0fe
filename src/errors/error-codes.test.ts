import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CLASSES } from './error-classes.ts';
import { ERROR_CODES } from './error-codes.ts';
import { GatewayError } from './gateway-error.ts';
import { errorStatus, renderErrorBody } from './render-error.ts';
import { UPSTREAM_PUBLIC_CODES } from './upstream-codes.ts';

const apiDoc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

describe('error catalogue', () => {
  it('documents every code in docs/api.md, with its status', () => {
    for (const code of Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[]) {
      const status = new GatewayError(code).status;
      assert.ok(apiDoc.includes(`| \`${code}\` | ${status} |`), `${code} (${status}) is in docs/api.md`);
    }
  });

  it('keeps the class table of SPEC.md (Errors: Classes)', () => {
    assert.equal(ERROR_CLASSES.bad_request.status, 400);
    assert.equal(ERROR_CLASSES.auth.openaiType, 'authentication_error');
    assert.equal(ERROR_CLASSES.permission.status, 403);
    assert.equal(ERROR_CLASSES.rate_limit.retryable, true);
    assert.equal(ERROR_CLASSES.server.status, 502);
    assert.equal(ERROR_CLASSES.timeout.status, 504);
    assert.equal(new GatewayError('model_not_allowed').status, 403);
    assert.equal(new GatewayError('extension_disabled').status, 503);
    assert.equal(new GatewayError('budget_exceeded').openaiType, 'insufficient_quota');
  });

  it('renders both shapes without the private detail', () => {
    const error = new GatewayError('upstream_error', { detail: 'provider said: secret stuff' });
    const openai = JSON.stringify(renderErrorBody(error, 'openai'));
    const anthropic = JSON.stringify(renderErrorBody(error, 'anthropic'));
    assert.deepEqual(JSON.parse(openai), {
      error: {
        message: 'The upstream provider returned an error.',
        type: 'server_error',
        param: null,
        code: 'upstream_error',
      },
    });
    assert.deepEqual(JSON.parse(anthropic), {
      type: 'error',
      error: { type: 'api_error', message: 'The upstream provider returned an error.' },
    });
    assert.ok(!openai.includes('secret') && !anthropic.includes('secret'));
  });

  it('documents every upstream code a client may see in docs/api.md', () => {
    for (const code of UPSTREAM_PUBLIC_CODES) {
      assert.ok(apiDoc.includes(`| \`${code}\` | 400 |`), `${code} is in docs/api.md`);
    }
  });

  it('keeps the upstream param and documented code in the OpenAI shape', () => {
    const error = new GatewayError('invalid_request', {
      param: 'temperature',
      upstreamCode: 'invalid_value',
    });
    assert.deepEqual(renderErrorBody(error, 'openai'), {
      error: {
        message: 'The request is not valid.',
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'invalid_value',
      },
    });
  });

  it('says `prompt is too long` on the Anthropic shape, with the counts when known', () => {
    const counted = new GatewayError('context_length_exceeded', {
      tokenCounts: { inputTokens: 210_000, limitTokens: 200_000 },
    });
    assert.deepEqual(renderErrorBody(counted, 'anthropic'), {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    });
    const uncounted = new GatewayError('context_length_exceeded');
    assert.equal(
      (renderErrorBody(uncounted, 'anthropic') as { error: { message: string } }).error.message,
      'prompt is too long',
    );
    assert.equal(
      (renderErrorBody(uncounted, 'openai') as { error: { code: string } }).error.code,
      'context_length_exceeded',
    );
  });

  it("answers Anthropic's overload as 529 overloaded_error, and 503 in the OpenAI shape", () => {
    const error = new GatewayError('upstream_overloaded');
    assert.equal(errorStatus(error, 'anthropic'), 529);
    assert.equal(errorStatus(error, 'openai'), 503);
    assert.equal(
      (renderErrorBody(error, 'anthropic') as { error: { type: string } }).error.type,
      'overloaded_error',
    );
    assert.equal(error.retryable, true);
    const tooLarge = new GatewayError('request_too_large');
    assert.equal(errorStatus(tooLarge, 'anthropic'), 413);
    assert.equal(
      (renderErrorBody(tooLarge, 'anthropic') as { error: { type: string } }).error.type,
      'request_too_large',
    );
  });

  it('passes the upstream message through only when asked, scrubbed of credentials', () => {
    const error = new GatewayError('upstream_error', {
      upstreamMessage: 'bad key Bearer sk-live-abcdef123456 and AIzaSyA1234567890abcdefghij1234567890abc',
    });
    const generic = renderErrorBody(error, 'openai') as { error: { message: string } };
    assert.equal(generic.error.message, 'The upstream provider returned an error.');
    const passed = JSON.stringify(renderErrorBody(error, 'anthropic', 'passthrough'));
    assert.ok(passed.includes('bad key'));
    assert.ok(!passed.includes('sk-live') && !passed.includes('AIza'), passed);
  });
});
