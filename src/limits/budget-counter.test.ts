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
    await Promise.all(Array.from({ length: 10 }, () => counter.seed('key_a')));
    assert.equal(reads, 1, 'one database read for the whole burst');
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget('key_a'))), 7);
  });

  it('keeps a counter another replica seeded first', async () => {
    await cache.set(LIMIT_KEYS.budget('key_a'), '9', 0);
    stored = 0;
    await counter.seed('key_a');
    assert.equal(await cache.get(LIMIT_KEYS.budget('key_a')), '9');
  });

  it('seeds again once the counter is gone', async () => {
    stored = 3;
    await counter.seed('key_a');
    await cache.del(LIMIT_KEYS.budget('key_a'));
    stored = 4;
    await counter.seed('key_a');
    assert.equal(reads, 2);
    assert.equal(await cache.get(LIMIT_KEYS.budget('key_a')), '4');
  });
});
