import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin } from '../helpers/admin-api.ts';
import { chat, deleteExtension, type ExtensionsRig, recordedRuns, startRig } from './support.ts';

/**
 * A hook whose promise never settles drops its isolate at its wall-clock bound, and the next call
 * builds it again by running the module's top level. When that build failed too (the top level past its limit), the error
 * escaped the extension runtime and the call was answered a bare 500. This module's top level
 * loops once the clock passes `brokenAfterMs`, so its first builds (the admin API's check, the
 * runtime's load) succeed and every build after fails.
 */
function moduleBrokenAfter(brokenAfterMs: number): string {
  return `if (Date.now() > ${brokenAfterMs}) { for (;;) {} }
export function beforeUpstream(call) {
  if (call.body.messages[0].content.startsWith('hang')) return new Promise(() => {});
}`;
}

describe('an isolate that cannot be built again after a timeout', () => {
  let rig: ExtensionsRig;
  before(async () => {
    rig = await startRig({ env: { EXTENSION_BREAKER_THRESHOLD: '1000' } });
  });
  after(() => rig.close());

  async function install(id: string, critical: boolean): Promise<void> {
    const brokenAfterMs = Date.now() + 4_000;
    await admin(rig.gw, 'POST', '/extensions', {
      id,
      models: ['gpt'],
      critical,
      limits: { timeoutMs: 200, memoryMb: 32 },
      source: moduleBrokenAfter(brokenAfterMs),
    });
    assert.ok(Date.now() < brokenAfterMs, 'the extension was installed before its module breaks');
    await new Promise((resolve) => setTimeout(resolve, brokenAfterMs - Date.now() + 50));
  }

  it("fails the hook, not the call: a non-critical extension's call is served", async () => {
    await install('rebuild-fails', false);
    const hung = await chat(rig, 'hang now');
    assert.equal(hung.status, 200, 'the hang is the hook failing');
    const next = await chat(rig, 'hello');
    assert.equal(next.status, 200, JSON.stringify(next.body));
    const runs = await recordedRuns(rig.gw, next.headers.get('x-request-id') ?? '');
    const run = runs.find((candidate) => candidate.extensionId === 'rebuild-fails');
    assert.equal(run?.outcome, 'failed');
    assert.match(run?.failure ?? '', /could not be built again/);
    const again = await chat(rig, 'hello again');
    assert.equal(again.status, 200, 'the next call tries the build again and fails the hook again');
    await deleteExtension(rig.gw, 'rebuild-fails');
  });

  it("a critical extension's call is refused with 503 extension_disabled", async () => {
    await install('rebuild-fails-critical', true);
    const hung = await chat(rig, 'hang now');
    assert.equal(hung.status, 503);
    const next = await chat(rig, 'hello');
    assert.equal(next.status, 503, JSON.stringify(next.body));
    assert.equal((next.body.error as { code: string }).code, 'extension_disabled');
    await deleteExtension(rig.gw, 'rebuild-fails-critical');
  });
});
