import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callSlot } from './call-slot.ts';
import { testCallContext } from './test-support.ts';

describe('callSlot', () => {
  it('keeps each slot apart on one call, and each call apart', () => {
    const reservation = callSlot<{ tokens: number }>('reservation');
    const started = callSlot<number>('started');
    const first = testCallContext();
    const second = testCallContext();
    reservation.set(first, { tokens: 12 });
    started.set(first, 1_000);
    started.set(second, 2_000);
    assert.deepEqual(reservation.get(first), { tokens: 12 });
    assert.equal(started.get(first), 1_000);
    assert.equal(reservation.get(second), undefined);
    assert.equal(started.get(second), 2_000);
  });

  it('forgets a value once deleted, and only that slot', () => {
    const pending = callSlot<string>('pending');
    const kept = callSlot<string>('kept');
    const ctx = testCallContext();
    pending.set(ctx, 'write');
    kept.set(ctx, 'record');
    pending.delete(ctx);
    assert.equal(pending.get(ctx), undefined);
    assert.equal(kept.get(ctx), 'record');
  });

  it('reads nothing from a slot declared after the call began', () => {
    const ctx = testCallContext();
    callSlot<number>('early').set(ctx, 1);
    assert.equal(callSlot<number>('late').get(ctx), undefined);
  });
});
