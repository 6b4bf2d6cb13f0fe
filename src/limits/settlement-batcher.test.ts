import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { CallsSettlement } from '../cache/cache-store.ts';
import { DIAGNOSTICS, type SettleErrorEvent } from '../diagnostics/diagnostics-channels.ts';
import { LIMIT_KEYS, RATE_WINDOW_MS } from './limit-keys.ts';
import { SettlementBatcher } from './settlement-batcher.ts';

/** A cache store whose settlements complete when the test says so. */
function heldStore() {
  const sent: CallsSettlement[] = [];
  const pending: { resolve(): void; reject(error: Error): void }[] = [];
  const cache = {
    settleCalls: (settlement: CallsSettlement) => {
      sent.push(settlement);
      return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
    },
  };
  /** Completes the oldest settlement still held and lets the batcher react. */
  const complete = async (error?: Error) => {
    const next = pending.shift();
    assert.ok(next !== undefined, 'a settlement is in flight');
    if (error === undefined) next.resolve();
    else next.reject(error);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { cache, sent, complete };
}

const idsOf = (settlement: CallsSettlement | undefined) =>
  settlement?.tokens?.entries.map((entry) => entry.id);

const LEASE = 30_000;

describe('settlement batcher', () => {
  it('sends a call at once when its key has nothing in flight, so calls one after another settle in order', async () => {
    const store = heldStore();
    const batcher = new SettlementBatcher({ cache: store.cache, leaseMs: LEASE });
    batcher.add('key_a', { requestId: 'r1', tokens: 100, budget: { costCents: 1.5 } });
    assert.deepEqual(store.sent, [
      {
        windowMs: RATE_WINDOW_MS,
        tokens: { key: LIMIT_KEYS.tpm('key_a'), entries: [{ id: 'r1', cost: 100 }] },
        budget: {
          key: LIMIT_KEYS.budget('key_a'),
          heldKey: LIMIT_KEYS.budgetHeld('key_a'),
          costCents: 1.5,
          release: ['r1'],
          leaseMs: LEASE,
        },
      },
    ]);
    await store.complete();
    batcher.add('key_a', { requestId: 'r2', tokens: 7, budget: null });
    assert.deepEqual(idsOf(store.sent[1]), ['r2'], 'sent at once again');
    assert.equal(store.sent[1]?.budget, null);
    await store.complete();
    await batcher.idle();
  });

  it('gathers the calls that finish while one is in flight, per key, and sends them together when it returns', async () => {
    const store = heldStore();
    const batcher = new SettlementBatcher({ cache: store.cache, leaseMs: LEASE });
    batcher.add('key_a', { requestId: 'r1', tokens: 1, budget: null });
    batcher.add('key_a', { requestId: 'r2', tokens: 2, budget: { costCents: 0.5 } });
    batcher.add('key_b', { requestId: 'r3', tokens: null, budget: { costCents: 2 } });
    batcher.add('key_a', { requestId: 'r4', tokens: null, budget: { costCents: 0.25 } });
    batcher.add('key_a', { requestId: 'r5', tokens: 0, budget: null });
    assert.deepEqual(
      store.sent.map(idsOf),
      [['r1'], undefined],
      "key_b had nothing in flight; key_a's rest waits",
    );
    await store.complete();
    assert.equal(store.sent.length, 3);
    assert.deepEqual(store.sent[2], {
      windowMs: RATE_WINDOW_MS,
      tokens: {
        key: LIMIT_KEYS.tpm('key_a'),
        entries: [
          { id: 'r2', cost: 2 },
          { id: 'r5', cost: 0 },
        ],
      },
      budget: {
        key: LIMIT_KEYS.budget('key_a'),
        heldKey: LIMIT_KEYS.budgetHeld('key_a'),
        costCents: 0.75,
        release: ['r2', 'r4'],
        leaseMs: LEASE,
      },
    });
    let idle = false;
    const waiting = batcher.idle().then(() => {
      idle = true;
    });
    await store.complete();
    assert.equal(idle, false, 'idle() waits for every settlement in flight');
    await store.complete();
    await waiting;
    assert.equal(store.sent.length, 3);
  });

  it('sends a waiting batch that reached its size beside the one in flight', async () => {
    const store = heldStore();
    const batcher = new SettlementBatcher({ cache: store.cache, maxCalls: 2, leaseMs: LEASE });
    for (const requestId of ['r1', 'r2', 'r3', 'r4'])
      batcher.add('key_a', { requestId, tokens: 1, budget: null });
    assert.deepEqual(store.sent.map(idsOf), [['r1'], ['r2', 'r3']]);
    await store.complete();
    assert.equal(store.sent.length, 2, 'r4 waits while a batch is still in flight');
    await store.complete();
    assert.deepEqual(store.sent.map(idsOf), [['r1'], ['r2', 'r3'], ['r4']]);
    await store.complete();
    await batcher.idle();
  });

  it('reports a failed batch with its request ids, and goes on settling later calls', async () => {
    const store = heldStore();
    const failures: SettleErrorEvent[] = [];
    const unsubscribe = DIAGNOSTICS.settleError.subscribe((event) => failures.push(event));
    after(unsubscribe);
    const batcher = new SettlementBatcher({ cache: store.cache, leaseMs: LEASE });
    batcher.add('key_a', { requestId: 'r1', tokens: 1, budget: { costCents: 1 } });
    batcher.add('key_a', { requestId: 'r2', tokens: null, budget: { costCents: 1 } });
    const failure = new Error('cache store down');
    await store.complete(failure);
    await store.complete(failure);
    assert.deepEqual(failures, [
      { error: failure, requestIds: ['r1'] },
      { error: failure, requestIds: ['r2'] },
    ]);
    batcher.add('key_a', { requestId: 'r3', tokens: 1, budget: null });
    assert.equal(store.sent.length, 3);
    await store.complete();
    await batcher.idle();
  });
});
