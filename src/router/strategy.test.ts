import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseMember, LATENCY_TIE_RATIO, type PoolMember, pickWeighted } from './strategy.ts';

function member(item: string, fields: Partial<PoolMember<string>> = {}): PoolMember<string> {
  return { item, weight: 1, inFlight: 0, latencyMs: null, ...fields };
}

/** A generator of evenly spread points in [0, 1), so a split can be checked exactly. */
function sweep(steps: number): () => number {
  let i = 0;
  return () => (i++ % steps) / steps;
}

describe('weighted', () => {
  it('splits in proportion to weight', () => {
    const members = [member('a', { weight: 3 }), member('b', { weight: 1 })];
    const random = sweep(400);
    const counts = { a: 0, b: 0 };
    for (let i = 0; i < 400; i++) counts[chooseMember('weighted', members, random).item as 'a' | 'b']++;
    assert.deepEqual(counts, { a: 300, b: 100 });
  });

  it('answers the last member when the point lands on the total (random() close to 1)', () => {
    const members = [member('a'), member('b')];
    assert.equal(pickWeighted(members, () => 0.999_999_999).item, 'b');
    assert.equal(pickWeighted(members, () => 0).item, 'a');
  });
});

describe('least-busy', () => {
  it('picks the deployment with the fewest attempts in flight', () => {
    const members = [
      member('a', { inFlight: 2 }),
      member('b', { inFlight: 0 }),
      member('c', { inFlight: 1 }),
    ];
    for (const point of [0, 0.5, 0.99])
      assert.equal(chooseMember('least-busy', members, () => point).item, 'b');
  });

  it('breaks ties by weight', () => {
    const members = [member('a', { inFlight: 1 }), member('b', { weight: 1 }), member('c', { weight: 3 })];
    assert.equal(chooseMember('least-busy', members, () => 0.1).item, 'b');
    assert.equal(chooseMember('least-busy', members, () => 0.5).item, 'c');
  });
});

describe('lowest-latency', () => {
  it('picks the lowest recent latency', () => {
    const members = [
      member('a', { latencyMs: 300 }),
      member('b', { latencyMs: 120 }),
      member('c', { latencyMs: 500 }),
    ];
    assert.equal(chooseMember('lowest-latency', members, () => 0.9).item, 'b');
  });

  it('tries an unmeasured deployment first, so that it gets measured', () => {
    const members = [member('a', { latencyMs: 10 }), member('b', { latencyMs: null })];
    assert.equal(chooseMember('lowest-latency', members, () => 0).item, 'b');
  });

  it(`counts latencies within ${LATENCY_TIE_RATIO * 100}% of the best as ties`, () => {
    const members = [
      member('a', { latencyMs: 100 }),
      member('b', { latencyMs: 105 }),
      member('c', { latencyMs: 200 }),
    ];
    assert.equal(chooseMember('lowest-latency', members, () => 0.2).item, 'a');
    assert.equal(chooseMember('lowest-latency', members, () => 0.7).item, 'b');
  });
});
