import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../errors/gateway-error.ts';
import { COOLDOWN_RESYNC_MS, formatAnnouncement, parseAnnouncement } from './cooldown-mirror.ts';
import { CooldownTracker } from './cooldown-tracker.ts';
import { ClockStore } from './test-support.ts';

const settings = { failureThreshold: 2, windowMs: 60_000, durationMs: 30_000 };
const deployment = { id: 'dep_a', publicModel: 'm', provider: 'openai' };

/** Two replicas sharing one cache store, both listening to announcements. */
async function replicas() {
  const store = new ClockStore();
  const replica = () => new CooldownTracker(store.asCacheStore(), { now: () => store.nowMs });
  const a = replica();
  const b = replica();
  await a.watch();
  await b.watch();
  let sequence = 0;
  const coolOnA = async () => {
    for (let i = 0; i < settings.failureThreshold; i++) {
      await a.recordFailure(deployment, `f${++sequence}`, new GatewayError('upstream_error'), settings);
    }
  };
  return { store, a, b, replica, coolOnA };
}

/** Lets announcements and background reads land. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CooldownMirror', () => {
  it('reads a deployment once at its first pick, then answers from memory', async () => {
    const { store, b } = await replicas();
    store.operations.length = 0;
    const first = b.sync('dep_a');
    assert.ok(first !== null, 'the first pick waits for the read');
    assert.equal(b.sync('dep_a'), first, 'concurrent picks share the read');
    await first;
    for (let i = 0; i < 100; i++) assert.equal(b.sync('dep_a'), null);
    assert.equal(b.remainingMs('dep_a'), 0);
    assert.deepEqual(store.operations, ['ttlMs']);
  });

  it('learns a cooldown another replica started from its announcement, without a read', async () => {
    const { store, b, coolOnA } = await replicas();
    await b.sync('dep_a');
    await coolOnA();
    await settle();
    store.operations.length = 0;
    assert.equal(b.sync('dep_a'), null);
    assert.equal(b.remainingMs('dep_a'), 30_000);
    assert.deepEqual(store.operations, []);
  });

  it('sees the cooldowns already running when it starts, at the first pick', async () => {
    const { store, replica, coolOnA } = await replicas();
    await coolOnA();
    store.nowMs += 1_000;
    const started = replica();
    await started.sync('dep_a');
    assert.equal(started.remainingMs('dep_a'), 29_000);
  });

  it('repairs a lost announcement within COOLDOWN_RESYNC_MS', async () => {
    const { store, b, coolOnA } = await replicas();
    await b.sync('dep_a');
    store.loseAnnouncements = true;
    await coolOnA();
    await settle();
    assert.equal(b.remainingMs('dep_a'), 0, 'not heard of yet');
    store.nowMs += COOLDOWN_RESYNC_MS;
    assert.equal(b.sync('dep_a'), null, 'the read runs in the background');
    await settle();
    assert.equal(b.remainingMs('dep_a'), 30_000 - COOLDOWN_RESYNC_MS);
  });

  it('lets the deployment back when the cache store forgot its cooldown', async () => {
    const { store, a, coolOnA } = await replicas();
    await a.sync('dep_a');
    await coolOnA();
    store.clear();
    store.nowMs += COOLDOWN_RESYNC_MS;
    a.sync('dep_a');
    await settle();
    assert.equal(a.remainingMs('dep_a'), 0);
  });

  it('keeps an announcement that arrives while an older read is on its way', async () => {
    const { store, b, coolOnA } = await replicas();
    store.holdReads = true;
    const read = b.sync('dep_a');
    await coolOnA();
    await settle();
    store.clear();
    store.releaseReads();
    await read;
    assert.equal(b.remainingMs('dep_a'), 30_000);
  });

  it('ends a cooldown at its end, on every replica', async () => {
    const { store, a, b, coolOnA } = await replicas();
    await b.sync('dep_a');
    await coolOnA();
    await settle();
    store.nowMs += 29_999;
    assert.equal(a.remainingMs('dep_a'), 1);
    assert.equal(b.remainingMs('dep_a'), 1);
    store.nowMs += 1;
    assert.equal(a.remainingMs('dep_a'), 0);
    assert.equal(b.remainingMs('dep_a'), 0);
  });

  it('subscribes again at a later pick when the first subscription failed', async () => {
    const store = new ClockStore();
    const subscribe = store.subscribe.bind(store);
    store.subscribe = async () => {
      throw new Error('cache store down');
    };
    const tracker = new CooldownTracker(store.asCacheStore(), { now: () => store.nowMs });
    await tracker.watch();
    store.subscribe = subscribe;
    store.operations.length = 0;
    await tracker.sync('dep_a');
    assert.deepEqual(store.operations, ['ttlMs'], 'not before COOLDOWN_RESYNC_MS');
    store.nowMs += COOLDOWN_RESYNC_MS;
    tracker.sync('dep_a');
    await settle();
    assert.deepEqual(store.operations.slice(1).sort(), ['subscribe', 'ttlMs']);
  });
});

describe('cooldown announcements', () => {
  it('round-trip', () => {
    const announcement = { deploymentId: 'dep_a', remainingMs: 1_500 };
    assert.deepEqual(parseAnnouncement(formatAnnouncement(announcement)), announcement);
  });

  it('ignores messages it does not understand', () => {
    for (const message of [
      '',
      'dep_a',
      'null',
      '{"deploymentId":"dep_a"}',
      '{"deploymentId":"","remainingMs":10}',
      '{"deploymentId":"dep_a","remainingMs":-5}',
      '{"deploymentId":"dep_a","remainingMs":"10"}',
    ]) {
      assert.equal(parseAnnouncement(message), null, message);
    }
  });
});
