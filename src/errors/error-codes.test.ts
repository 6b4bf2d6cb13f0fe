import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CLASSES } from './error-classes.ts';
import { ERROR_CODES } from './error-codes.ts';
import { GatewayError } from './gateway-error.ts';
import { renderErrorBody } from './render-error.ts';

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
});
