import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin } from '../helpers/admin-api.ts';
import {
  adminRaw,
  answerText,
  chat,
  deleteExtension,
  type ExtensionsRig,
  extensionState,
  recordedRuns,
  startRig,
} from './support.ts';

const THROWS = 'export function beforeUpstream() { throw new Error("not configured"); }';
const FIXED = 'export function beforeUpstream() {}';

describe('extension failure breaker', () => {
  let rig: ExtensionsRig;
  before(async () => {
    rig = await startRig({ env: { EXTENSION_BREAKER_THRESHOLD: '2' } });
  });
  after(() => rig.close());

  it('critical: failures answer 503, the trip disables it, a PATCHed fix and a reset bring it back', async () => {
    await admin(rig.gw, 'POST', '/extensions', {
      id: 'guard',
      critical: true,
      models: ['gpt'],
      source: THROWS,
      limits: { timeoutMs: 2_000 },
    });
    try {
      const upstreamCalls = rig.openai.requests.length;
      const first = await chat(rig, 'hello');
      assert.equal(first.status, 503);
      assert.equal((first.body.error as { code: string }).code, 'extension_disabled');
      assert.ok(first.headers.get('retry-after'), 'Retry-After on the 503');
      assert.equal((await extensionState(rig.gw, 'guard')).state, 'active');
      assert.equal((await chat(rig, 'hello')).status, 503);
      const tripped = await extensionState(rig.gw, 'guard');
      assert.equal(tripped.state, 'tripped');
      assert.equal(tripped.consecutiveFailures, 2);
      assert.match(tripped.lastFailure?.reason ?? '', /threw an Error at extension\.js:1:/);
      assert.ok(!JSON.stringify(tripped).includes('hello'), 'no call content in the admin view');
      assert.ok(!tripped.lastFailure?.reason.includes('not configured'), 'nor the message the hook threw');

      const refused = await chat(rig, 'hello');
      assert.equal(refused.status, 503);
      assert.equal((refused.body.error as { code: string }).code, 'extension_disabled');
      assert.ok(refused.headers.get('retry-after'));
      assert.deepEqual(
        (await recordedRuns(rig.gw, refused.headers.get('x-request-id') ?? '')).map((run) => run.outcome),
        ['disabled'],
      );
      assert.equal(rig.openai.requests.length, upstreamCalls, 'nothing reached the upstream');
      assert.equal(
        (await chat(rig, 'not gpt', { model: 'claude', max_tokens: 10 })).status,
        200,
        'other models flow',
      );

      const patched = await admin<{ state: string }>(rig.gw, 'PATCH', '/extensions/guard', {
        source: FIXED,
        limits: { timeoutMs: 2_000 },
      });
      assert.equal(patched.state, 'active', 'a new source resets the breaker');
      const reset = await adminRaw(rig.gw, 'POST', '/extensions/guard/reset');
      assert.equal(reset.status, 200);
      assert.equal(reset.body.state, 'active');
      assert.equal(reset.body.consecutiveFailures, 0);
      const served = await chat(rig, 'hello again');
      assert.equal(served.status, 200);
      assert.equal(answerText(served.body), 'echo: hello again');
    } finally {
      await deleteExtension(rig.gw, 'guard');
    }
  });

  it('non-critical: failures and the trip skip it, calls go on; a reset makes it active', async () => {
    await admin(rig.gw, 'POST', '/extensions', {
      id: 'helper',
      models: ['gpt'],
      source: THROWS,
      limits: { timeoutMs: 2_000 },
    });
    try {
      for (let i = 0; i < 3; i += 1) assert.equal((await chat(rig, `call ${i}`)).status, 200);
      assert.equal((await extensionState(rig.gw, 'helper')).state, 'skipped');
      const skipped = await chat(rig, 'after the trip');
      assert.equal(skipped.status, 200);
      const runs = await recordedRuns(rig.gw, skipped.headers.get('x-request-id') ?? '');
      assert.deepEqual(
        runs.map((run) => [run.extensionId, run.hook, run.outcome]),
        [['helper', 'beforeUpstream', 'skipped']],
      );
      const reset = await adminRaw(rig.gw, 'POST', '/extensions/helper/reset');
      assert.equal(reset.body.state, 'active');
      const failing = await chat(rig, 'runs again');
      assert.equal(failing.status, 200);
      const failed = await recordedRuns(rig.gw, failing.headers.get('x-request-id') ?? '');
      assert.equal(failed[0].outcome, 'failed');
      assert.match(failed[0].failure ?? '', /threw an Error at extension\.js:1:/);
    } finally {
      await deleteExtension(rig.gw, 'helper');
    }
  });

  it('a reset of an unknown extension is a 404', async () => {
    const answer = await adminRaw(rig.gw, 'POST', '/extensions/nothing-here/reset');
    assert.equal(answer.status, 404);
  });
});
