import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MemoryCacheStore } from '../cache/memory-cache-store.ts';
import { BudgetCounter } from './budget-counter.ts';
import { LIMIT_KEYS } from './limit-keys.ts';

describe('BudgetCounter', () => {
  let cache: MemoryCacheStore;
  let reads: number;
  let stored: number;
  let pending: number;
  let counter: BudgetCounter;

  beforeEach(() => {
    cache = new MemoryCacheStore();
    reads = 0;
    stored = 0;
    pending = 0;
    counter = new BudgetCounter({
      cache,
      readSpendCents: async () => {
        reads++;
        await new Promise((resolve) => setImmediate(resolve));
        return stored;
      },
      pendingSpendCents: () => pending,
    });
  });
  afterEach(() => cache.close());

  it('seeds a missing counter once for a burst, from stored plus unwritten spend', async () => {
    stored = 5;
    pending = 2;
    const decisions = await Promise.all(Array.from({ length: 10 }, () => counter.reserve('key_a', 1, 10)));
    assert.equal(reads, 1, 'one database read for the whole burst');
    assert.equal(decisions.filter((d) => d.admitted).length, 3, '7 spent, room for 3 more');
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget('key_a'))), 10);
  });

  it('never admits past the budget, whatever the interleaving', async () => {
    const decisions = await Promise.all(Array.from({ length: 100 }, () => counter.reserve('key_a', 0.3, 10)));
    const admitted = decisions.filter((d) => d.admitted).length;
    assert.equal(admitted, 33);
  });

  it('adjusts an existing counter up and down, and leaves a missing one missing', async () => {
    await counter.reserve('key_a', 4, 10);
    await counter.adjust('key_a', -3);
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget('key_a'))), 1);
    await counter.adjust('key_b', 5);
    assert.equal(await cache.get(LIMIT_KEYS.budget('key_b')), null);
  });

  it('keeps a counter another replica seeded first', async () => {
    await cache.set(LIMIT_KEYS.budget('key_a'), '9', 0);
    stored = 0;
    const decision = await counter.reserve('key_a', 2, 10);
    assert.equal(decision.admitted, false);
    assert.equal(reads, 0);
  });
});
