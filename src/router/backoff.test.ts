import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_RETRY_AFTER_MS, retryDelayMs } from './backoff.ts';

const base = { backoffMs: 250, retryAfterSeconds: undefined, sameDeployment: true, totalMs: 600_000 };

describe('retryDelayMs', () => {
  it('waits the backoff when the upstream named no delay', () => {
    assert.equal(retryDelayMs(base), 250);
  });

  it("honours the upstream's Retry-After when retrying the same deployment", () => {
    assert.equal(retryDelayMs({ ...base, retryAfterSeconds: 2 }), 2000);
    assert.equal(retryDelayMs({ ...base, retryAfterSeconds: 0.1 }), 250, 'never shorter than the backoff');
    assert.equal(retryDelayMs({ ...base, retryAfterSeconds: 1.2345 }), 1235, 'rounded up to the ms');
  });

  it('does not wait for a deployment it is not going back to', () => {
    assert.equal(retryDelayMs({ ...base, retryAfterSeconds: 20, sameDeployment: false }), 250);
  });

  it('gives up on a deployment that asks for more than the maximum', () => {
    assert.equal(retryDelayMs({ ...base, retryAfterSeconds: MAX_RETRY_AFTER_MS / 1000 }), MAX_RETRY_AFTER_MS);
    assert.equal(retryDelayMs({ ...base, retryAfterSeconds: MAX_RETRY_AFTER_MS / 1000 + 1 }), null);
  });

  it('gives up on a deployment that asks for more than the total timeout', () => {
    assert.equal(retryDelayMs({ ...base, retryAfterSeconds: 3, totalMs: 2000 }), null);
    assert.equal(
      retryDelayMs({ ...base, backoffMs: 5000, totalMs: 2000 }),
      2000,
      'the backoff is capped too',
    );
  });
});
