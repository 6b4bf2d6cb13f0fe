import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { TokenEntry } from '../cache/cache-store.ts';
import { MemoryCacheStore } from '../cache/memory-cache-store.ts';
import { BudgetCounter } from './budget-counter.ts';
import { LIMIT_KEYS } from './limit-keys.ts';

describe('BudgetCounter', () => {
  let cache: MemoryCacheStore;
  let reads: number;
  let stored: number;
  let pending: number;
  let counter: BudgetCounter;
  let reservations: TokenEntry[];
  let epoch: number;
  let unsent: { costCents: number; calls: TokenEntry[] };

  beforeEach(() => {
    cache = new MemoryCacheStore();
    reads = 0;
    stored = 0;
    pending = 0;
    reservations = [];
    epoch = 0;
    unsent = { costCents: 0, calls: [] };
    counter = new BudgetCounter({
      cache,
      readSpendCents: async () => {
        reads++;
        await new Promise((resolve) => setImmediate(resolve));
        return stored;
      },
      pendingSpendCents: () => pending,
      spendEpoch: () => epoch,
      inFlight: () => ({ reservations, unsent }),
      leaseMs: 60_000,
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

  it('a counter lost with calls in flight is rebuilt holding them, the unsent settlements left to add their cost', async () => {
    stored = 10;
    pending = 4; // 3 of it settled in a batch not yet sent
    reservations = [{ id: 'flying', cost: 20 }];
    unsent = { costCents: 3, calls: [{ id: 'landed', cost: 3 }] };
    await counter.seed('key_a');
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget('key_a'))), 11);
    const probe = await cache.admitCall({
      id: 'probe',
      windowMs: 60_000,
      requests: null,
      tokens: null,
      budget: {
        key: LIMIT_KEYS.budget('key_a'),
        heldKey: LIMIT_KEYS.budgetHeld('key_a'),
        limit: 100,
        amount: 1,
        leaseMs: 60_000,
      },
    });
    assert.deepEqual(probe.budget, { status: 'admitted', spent: 11, held: 24 });
  });

  it('reads the database again when a spend batch lands during the read, so it is counted once', async () => {
    stored = 10;
    pending = 4;
    let reads = 0;
    const landing = new BudgetCounter({
      cache,
      readSpendCents: async () => {
        reads++;
        if (reads === 1) {
          // The batch of 4 is being written while the first read runs, and lands in it.
          epoch = 1;
          stored = 14;
          pending = 0;
          epoch = 2;
        }
        return stored;
      },
      pendingSpendCents: () => pending,
      spendEpoch: () => epoch,
      inFlight: () => ({ reservations: [], unsent: { costCents: 0, calls: [] } }),
      leaseMs: 60_000,
    });
    await landing.seed('key_b');
    assert.equal(reads, 2);
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget('key_b'))), 14, 'not 18');
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
