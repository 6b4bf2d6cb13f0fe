import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RestartBackoff } from './restart-backoff.ts';

describe('worker restart backoff', () => {
  it('doubles while a worker keeps dying, up to half a minute, and never gives up', () => {
    const backoff = new RestartBackoff();
    const delays = Array.from({ length: 10 }, () => backoff.next(undefined, 0));
    assert.deepEqual(delays, [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    assert.equal(backoff.crashes, 10);
  });

  it('starts over once a worker served a minute before dying', () => {
    const backoff = new RestartBackoff();
    backoff.next(undefined, 0);
    backoff.next(1_000, 2_000);
    assert.equal(backoff.next(10_000, 70_000), 250);
    assert.equal(backoff.crashes, 1);
  });
});
