import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { type CooldownEvent, DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { CooldownTracker, countsTowardCooldown } from './cooldown-tracker.ts';
import { ClockStore } from './test-support.ts';

const settings = { failureThreshold: 3, windowMs: 60_000, durationMs: 30_000 };
const deployment = { id: 'dep_a', publicModel: 'm', provider: 'openai' };
const serverError = () => new GatewayError('upstream_error');

let unsubscribe = () => {};
afterEach(() => unsubscribe());

function setup() {
  const store = new ClockStore();
  const cooled: string[] = [];
  unsubscribe = DIAGNOSTICS.routerCooldown.subscribe((event) =>
    cooled.push(`${event.deploymentId}/${event.publicModel}/${event.reason}/${event.durationMs}`),
  );
  const tracker = new CooldownTracker(store.asCacheStore(), { now: () => store.nowMs });
  let sequence = 0;
  const fail = (error: GatewayError = serverError()) =>
    tracker.recordFailure(deployment, `attempt-${++sequence}`, error, settings);
  return { store, tracker, cooled, fail };
}

describe('CooldownTracker', () => {
  it('cools a deployment at the threshold, for durationMs, then lets it back', async () => {
    const { store, tracker, cooled, fail } = setup();
    assert.equal(await fail(), false);
    store.nowMs += 10_000;
    assert.equal(await fail(), false);
    assert.equal(tracker.remainingMs('dep_a'), 0);
    store.nowMs += 10_000;
    assert.equal(await fail(), true);
    assert.deepEqual(cooled, ['dep_a/m/server/30000']);
    assert.equal(tracker.remainingMs('dep_a'), 30_000);
    store.nowMs += 29_999;
    assert.equal(tracker.remainingMs('dep_a'), 1);
    store.nowMs += 1;
    assert.equal(tracker.remainingMs('dep_a'), 0);
  });

  it('forgets failures older than the window', async () => {
    const { store, tracker, fail } = setup();
    await fail();
    await fail();
    store.nowMs += 60_001;
    assert.equal(await fail(), false);
    assert.equal(tracker.remainingMs('dep_a'), 0);
  });

  it('does not extend a running cooldown, and tells it once', async () => {
    const { store, tracker, cooled, fail } = setup();
    for (let i = 0; i < 3; i++) await fail();
    store.nowMs += 5_000;
    assert.equal(await fail(), false);
    assert.equal(tracker.remainingMs('dep_a'), 25_000);
    assert.equal(cooled.length, 1);
  });

  it('cools again at the next failure while the old ones are still in the window (half-open)', async () => {
    const { store, tracker, fail } = setup();
    for (let i = 0; i < 3; i++) await fail();
    store.nowMs += 30_000;
    assert.equal(tracker.remainingMs('dep_a'), 0);
    assert.equal(await fail(), true);
  });

  it("never counts a client's own error or a context or content refusal", async () => {
    const { tracker, fail } = setup();
    for (const code of ['invalid_request', 'context_length_exceeded', 'content_policy_violation'] as const) {
      for (let i = 0; i < 5; i++) assert.equal(await fail(new GatewayError(code)), false);
    }
    assert.equal(tracker.remainingMs('dep_a'), 0);
  });

  it('counts rate limits, upstream errors and timeouts', () => {
    for (const code of [
      'rate_limit_exceeded',
      'upstream_error',
      'upstream_auth_failed',
      'timeout',
    ] as const) {
      assert.equal(countsTowardCooldown(new GatewayError(code)), true, code);
    }
  });

  it('never cools with a duration of 0', async () => {
    const { tracker } = setup();
    const zero = { ...settings, durationMs: 0 };
    for (let i = 0; i < 5; i++)
      assert.equal(await tracker.recordFailure(deployment, `z${i}`, serverError(), zero), false);
    assert.equal(tracker.remainingMs('dep_a'), 0);
  });

  it('publishes the cooldown once, from the replica that started it, with its provider and end', async () => {
    const { store, fail } = setup();
    const other = new CooldownTracker(store.asCacheStore(), { now: () => store.nowMs });
    const published: CooldownEvent[] = [];
    const stop = DIAGNOSTICS.routerCooldown.subscribe((event) => published.push(event));
    try {
      for (let i = 0; i < 3; i++) await fail();
      await other.recordFailure(deployment, 'on-the-other-replica', serverError(), settings);
      await fail();
      assert.deepEqual(published, [
        {
          deploymentId: 'dep_a',
          publicModel: 'm',
          provider: 'openai',
          reason: 'server',
          durationMs: settings.durationMs,
          untilMs: store.nowMs + settings.durationMs,
        },
      ]);
      store.nowMs += settings.durationMs;
      await fail();
      assert.equal(published.length, 2, 'a new cooldown after the last one ended is told again');
    } finally {
      stop();
    }
  });
});
