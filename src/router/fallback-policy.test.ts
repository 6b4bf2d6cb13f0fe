import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../errors/gateway-error.ts';
import { chainExhausted, fallbackKindOf, nextFallbackModel } from './fallback-policy.ts';

const fallbacks = {
  general: { a: ['b', 'c'] },
  context_window: { a: ['a-large'] },
  content_policy: {},
};

describe('fallbackKindOf', () => {
  it('maps each failure to its chain', () => {
    assert.equal(fallbackKindOf(new GatewayError('context_length_exceeded')), 'context_window');
    assert.equal(fallbackKindOf(new GatewayError('content_policy_violation')), 'content_policy');
    assert.equal(fallbackKindOf(new GatewayError('deployments_in_cooldown')), 'general');
    assert.equal(fallbackKindOf(new GatewayError('upstream_error')), 'general');
    assert.equal(fallbackKindOf(new GatewayError('timeout')), 'general');
    assert.equal(fallbackKindOf(new GatewayError('rate_limit_exceeded')), 'general');
  });

  it("answers the client's own mistakes, scope and gateway failures as they are", () => {
    for (const code of [
      'invalid_request',
      'unsupported_parameter',
      'model_not_allowed',
      'model_not_found',
      'internal_error',
      'service_unavailable',
      'budget_exceeded',
    ] as const) {
      assert.equal(fallbackKindOf(new GatewayError(code)), null, code);
    }
  });
});

describe('nextFallbackModel', () => {
  it("follows the requested model's chain in order, skipping the models tried", () => {
    assert.equal(nextFallbackModel(fallbacks, 'general', 'a', ['a']), 'b');
    assert.equal(nextFallbackModel(fallbacks, 'general', 'a', ['a', 'b']), 'c');
    assert.equal(nextFallbackModel(fallbacks, 'general', 'a', ['a', 'b', 'c']), null);
    assert.equal(nextFallbackModel(fallbacks, 'context_window', 'a', ['a', 'b']), 'a-large');
  });

  it('answers null without a chain', () => {
    assert.equal(nextFallbackModel(fallbacks, 'content_policy', 'a', ['a']), null);
    assert.equal(nextFallbackModel(fallbacks, 'general', 'z', ['z']), null);
  });
});

describe('chainExhausted', () => {
  it('is no_deployments_available with the status and class of the last failure', () => {
    const last = new GatewayError('deployments_in_cooldown', { retryAfterSeconds: 7 });
    const error = chainExhausted(last, ['a', 'b']);
    assert.equal(error.code, 'no_deployments_available');
    assert.equal(error.status, 429);
    assert.equal(error.openaiType, 'rate_limit_error');
    assert.equal(error.retryAfterSeconds, 7);
    assert.equal(chainExhausted(new GatewayError('context_length_exceeded'), ['a']).status, 400);
    assert.equal(chainExhausted(new GatewayError('timeout'), ['a']).status, 504);
  });
});
