import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATENCY_EWMA_ALPHA, nextLatencyEwma } from './latency-tracker.ts';

describe('nextLatencyEwma', () => {
  it('starts at the first sample', () => {
    assert.equal(nextLatencyEwma(null, 420), 420);
  });

  it('moves towards each sample by alpha', () => {
    assert.equal(nextLatencyEwma(100, 200), 100 + LATENCY_EWMA_ALPHA * 100);
    assert.equal(nextLatencyEwma(100, 200, 0.5), 150);
  });

  it('forgets an old level within a handful of samples', () => {
    let ewma: number | null = 1000;
    for (let i = 0; i < 10; i++) ewma = nextLatencyEwma(ewma, 100);
    assert.ok((ewma as number) < 130, String(ewma));
  });
});
