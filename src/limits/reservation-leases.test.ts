import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReservationRenewal } from '../cache/cache-store.ts';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import { LIMIT_KEYS } from './limit-keys.ts';
import { ReservationLeases } from './reservation-leases.ts';

describe('reservation leases', () => {
  it('renews the reservations held, one operation per key, and forgets the released ones', async () => {
    const renewals: ReservationRenewal[] = [];
    const leases = new ReservationLeases({
      cache: { renewReservations: async (renewal) => void renewals.push(renewal) },
      leaseMs: 9_000,
    });
    leases.hold('key_a', 'r1', 5);
    leases.hold('key_a', 'r2', 7.5);
    leases.hold('key_b', 'r3', 1);
    leases.release('key_b', 'r3');
    leases.release('key_a', 'unknown');
    await leases.renew();
    assert.deepEqual(renewals, [
      {
        heldKey: LIMIT_KEYS.budgetHeld('key_a'),
        reservations: [
          { id: 'r1', cost: 5 },
          { id: 'r2', cost: 7.5 },
        ],
        leaseMs: 9_000,
      },
    ]);
    assert.deepEqual(leases.reservationsOf('key_a'), [
      { id: 'r1', cost: 5 },
      { id: 'r2', cost: 7.5 },
    ]);
    assert.deepEqual(leases.reservationsOf('key_b'), []);
  });

  it('reports a failed renewal with its key and goes on', async () => {
    const failed: string[] = [];
    const unsubscribe = DIAGNOSTICS.leaseRenewError.subscribe((event) => failed.push(event.keyId));
    const leases = new ReservationLeases({
      cache: { renewReservations: async () => Promise.reject(new Error('store down')) },
    });
    leases.hold('key_a', 'r1', 5);
    await leases.renew();
    unsubscribe();
    assert.deepEqual(failed, ['key_a']);
    assert.equal(leases.leaseMs, 30_000);
  });
});
