import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeploymentProfile } from './deployment.ts';
import { describeParamRule, findParamViolation, profileAllowsTransport } from './operation-profile.ts';

const PROFILE: DeploymentProfile = {
  operations: {
    'chat.completions': { transports: ['json'], params: { temperature: { min: 0, max: 1 } } },
    'images.generations': { params: { size: ['1024x1024', '512x512'], n: [1] } },
  },
};

describe('profileAllowsTransport', () => {
  it('allows everything without a profile', () => {
    assert.equal(profileAllowsTransport(null, 'embeddings', 'json'), true);
  });

  it('follows the listed transports, and the provider defaults when none are listed', () => {
    assert.equal(profileAllowsTransport(PROFILE, 'chat.completions', 'json'), true);
    assert.equal(profileAllowsTransport(PROFILE, 'chat.completions', 'sse'), false);
    assert.equal(profileAllowsTransport(PROFILE, 'images.generations', 'json'), true);
  });

  it('refuses an operation the profile does not list', () => {
    assert.equal(profileAllowsTransport(PROFILE, 'embeddings', 'json'), false);
  });
});

describe('findParamViolation', () => {
  it('accepts values in the list or the range, and absent or null ones', () => {
    assert.equal(findParamViolation(PROFILE, 'chat.completions', { temperature: 0.5 }), null);
    assert.equal(findParamViolation(PROFILE, 'chat.completions', { temperature: null }), null);
    assert.equal(findParamViolation(PROFILE, 'images.generations', { size: '512x512', n: 1 }), null);
    assert.equal(findParamViolation(null, 'images.generations', { size: 'huge' }), null);
  });

  it('names the first parameter outside the profile', () => {
    assert.deepEqual(findParamViolation(PROFILE, 'chat.completions', { temperature: 1.5 }), {
      param: 'temperature',
      rule: { min: 0, max: 1 },
    });
    assert.equal(
      findParamViolation(PROFILE, 'chat.completions', { temperature: '0.5' })?.param,
      'temperature',
    );
    assert.equal(findParamViolation(PROFILE, 'images.generations', { size: '256x256' })?.param, 'size');
    assert.equal(findParamViolation(PROFILE, 'images.generations', { n: 2 })?.param, 'n');
  });
});

describe('describeParamRule', () => {
  it('says the allowed values in words', () => {
    assert.equal(describeParamRule(['a', 1]), 'one of "a", 1');
    assert.equal(describeParamRule({ min: 0, max: 2 }), 'between 0 and 2');
    assert.equal(describeParamRule({ max: 2 }), 'at most 2');
  });
});
