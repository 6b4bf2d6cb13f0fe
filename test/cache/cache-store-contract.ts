import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CacheStore } from '../../src/cache/cache-store.ts';
import { CacheUnavailableError } from '../../src/cache/cache-store.ts';

/**
 * The behaviour every CacheStore must have (src/cache/cache-store.ts), run against each
 * implementation. `create` gives a fresh, connected store; stores it creates are closed here.
 */
export function describeCacheStoreContract(name: string, create: () => Promise<CacheStore>): void {
  describe(`CacheStore contract: ${name}`, () => {
    let store: CacheStore;
    /** A logical key unique to this run, shaped like the gateway's own (`rl:{key_…}:rpm`). */
    const key = (label: string) => `test:{${randomUUID()}}:${label}`;

    before(async () => {
      store = await create();
    });
    after(async () => {
      await store.close();
    });

    describe('counters and values', () => {
      test('incrBy creates the key with its TTL and later increments keep that TTL', async () => {
        const k = key('counter');
        assert.equal(await store.incrBy(k, 5, 10_000), 5);
        assert.equal(await store.incrBy(k, -2, 999_999), 3);
        assert.equal(await store.get(k), '3');
        const ttl = await store.ttlMs(k);
        assert.ok(ttl !== null && ttl > 5_000 && ttl <= 10_000, `ttl ${ttl}`);
      });

      test('incrBy with a TTL of 0 creates a key without expiry', async () => {
        const k = key('forever');
        assert.equal(await store.incrBy(k, 1, 0), 1);
        assert.equal(await store.ttlMs(k), null);
        await store.del(k);
      });

      test('an expired counter starts over', async () => {
        const k = key('short');
        await store.incrBy(k, 7, 80);
        await sleep(150);
        assert.equal(await store.get(k), null);
        assert.equal(await store.incrBy(k, 2, 80), 2);
      });

      test('get, set, ttlMs and del', async () => {
        const k = key('value');
        assert.equal(await store.get(k), null);
        assert.equal(await store.ttlMs(k), null);
        await store.set(k, 'one', 10_000);
        assert.equal(await store.get(k), 'one');
        const ttl = await store.ttlMs(k);
        assert.ok(ttl !== null && ttl > 5_000 && ttl <= 10_000, `ttl ${ttl}`);
        await store.set(k, 'two', 0);
        assert.equal(await store.get(k), 'two');
        assert.equal(await store.ttlMs(k), null, 'set replaces the expiry');
        await store.del(k);
        assert.equal(await store.get(k), null);
        await store.del(k);
      });

      test('setIfAbsent sets only a missing or expired key', async () => {
        const k = key('once');
        assert.equal(await store.setIfAbsent(k, 'first', 80), true);
        assert.equal(await store.setIfAbsent(k, 'second', 80), false);
        assert.equal(await store.get(k), 'first');
        await sleep(150);
        assert.equal(await store.setIfAbsent(k, 'third', 10_000), true);
        assert.equal(await store.get(k), 'third');
        await store.del(k);
      });
    });

    describe('sliding window', () => {
      test('admits exactly up to the limit and reports the state at the boundary', async () => {
        const k = key('rpm');
        const request = { cost: 1, limit: 3, windowMs: 60_000 };
        for (const used of [1, 2, 3]) {
          const decision = await store.windowAdmit(k, { ...request, id: `r${used}` });
          assert.equal(decision.admitted, true);
          assert.equal(decision.used, used);
          assert.equal(decision.limit, 3);
          assert.equal(decision.remaining, 3 - used);
          assert.equal(decision.retryAfterMs, 0);
          assert.ok(decision.resetMs > 50_000 && decision.resetMs <= 60_000, `resetMs ${decision.resetMs}`);
        }
        const rejected = await store.windowAdmit(k, { ...request, id: 'r4' });
        assert.equal(rejected.admitted, false);
        assert.equal(rejected.used, 3);
        assert.equal(rejected.remaining, 0);
        assert.ok(
          rejected.retryAfterMs > 50_000 && rejected.retryAfterMs <= 60_000,
          `${rejected.retryAfterMs}`,
        );
        assert.ok(rejected.resetMs >= rejected.retryAfterMs);
        assert.equal((await store.windowState(k, 3, 60_000)).used, 3, 'a rejection records nothing');
        await store.del(k);
      });

      test('weighs entries by cost (TPM)', async () => {
        const k = key('tpm');
        const request = { limit: 1000, windowMs: 60_000 };
        assert.equal((await store.windowAdmit(k, { ...request, id: 'a', cost: 600 })).admitted, true);
        const tooBig = await store.windowAdmit(k, { ...request, id: 'b', cost: 500 });
        assert.equal(tooBig.admitted, false);
        assert.equal(tooBig.used, 600);
        assert.equal(tooBig.remaining, 400);
        const fits = await store.windowAdmit(k, { ...request, id: 'c', cost: 400 });
        assert.equal(fits.admitted, true);
        assert.equal(fits.used, 1000);
        assert.equal(fits.remaining, 0);
        await store.del(k);
      });

      test('retryAfterMs waits only for the entries that free the cost, resetMs for all of them', async () => {
        const k = key('retry');
        const request = { cost: 5, limit: 10, windowMs: 400 };
        await store.windowAdmit(k, { ...request, id: 'old' });
        await sleep(150);
        await store.windowAdmit(k, { ...request, id: 'new' });
        const rejected = await store.windowAdmit(k, { ...request, id: 'third' });
        assert.equal(rejected.admitted, false);
        // 'old' leaves about 250 ms from now, 'new' about 400 ms from now.
        assert.ok(
          rejected.retryAfterMs > 0 && rejected.retryAfterMs <= 260,
          `retryAfterMs ${rejected.retryAfterMs}`,
        );
        assert.ok(
          rejected.resetMs > rejected.retryAfterMs && rejected.resetMs <= 400,
          `resetMs ${rejected.resetMs}`,
        );
      });

      test('entries leave the window after windowMs', async () => {
        const k = key('leave');
        const request = { cost: 1, limit: 2, windowMs: 200 };
        await store.windowAdmit(k, { ...request, id: 'a' });
        await store.windowAdmit(k, { ...request, id: 'b' });
        const rejected = await store.windowAdmit(k, { ...request, id: 'c' });
        assert.equal(rejected.admitted, false);
        await sleep(rejected.retryAfterMs + 30);
        const state = await store.windowState(k, 2, 200);
        assert.deepEqual(state, {
          admitted: true,
          used: 0,
          limit: 2,
          remaining: 2,
          retryAfterMs: 0,
          resetMs: 0,
        });
        assert.equal((await store.windowAdmit(k, { ...request, id: 'd' })).admitted, true);
      });

      test('windowState of an unknown window is empty', async () => {
        assert.deepEqual(await store.windowState(key('empty'), 5, 1000), {
          admitted: true,
          used: 0,
          limit: 5,
          remaining: 5,
          retryAfterMs: 0,
          resetMs: 0,
        });
      });

      test('windowAdjust reconciles a reservation up and down and releases it with 0', async () => {
        const k = key('adjust');
        const windowMs = 60_000;
        await store.windowAdmit(k, { id: 'a', cost: 500, limit: 1000, windowMs });
        await store.windowAdmit(k, { id: 'b', cost: 100, limit: 1000, windowMs });
        await store.windowAdjust(k, 'a', 800, windowMs);
        assert.equal((await store.windowState(k, 1000, windowMs)).used, 900);
        await store.windowAdjust(k, 'a', 200, windowMs);
        assert.equal((await store.windowState(k, 1000, windowMs)).used, 300);
        await store.windowAdjust(k, 'unknown', 999, windowMs);
        assert.equal((await store.windowState(k, 1000, windowMs)).used, 300, 'an unknown id is a no-op');
        await store.windowAdjust(k, 'a', 0, windowMs);
        await store.windowAdjust(k, 'a', 300, windowMs);
        assert.equal((await store.windowState(k, 1000, windowMs)).used, 100, 'a released id is gone');
        assert.equal(
          (await store.windowAdmit(k, { id: 'c', cost: 900, limit: 1000, windowMs })).admitted,
          true,
        );
        await store.del(k);
      });

      test('windowAdjust does nothing once the entry has left the window', async () => {
        const k = key('adjust-late');
        await store.windowAdmit(k, { id: 'a', cost: 10, limit: 100, windowMs: 100 });
        await sleep(150);
        await store.windowAdjust(k, 'a', 50, 100);
        assert.equal((await store.windowState(k, 100, 100)).used, 0);
      });

      test('admitting an id again replaces its entry instead of counting it twice', async () => {
        const k = key('same-id');
        await store.windowAdmit(k, { id: 'a', cost: 6, limit: 10, windowMs: 60_000 });
        const again = await store.windowAdmit(k, { id: 'a', cost: 8, limit: 10, windowMs: 60_000 });
        assert.equal(again.admitted, true);
        assert.equal(again.used, 8);
        await store.del(k);
      });

      test('200 concurrent admissions with limit 50 admit exactly 50', async () => {
        const k = key('race');
        const decisions = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            store.windowAdmit(k, { id: `r${i}`, cost: 1, limit: 50, windowMs: 60_000 }),
          ),
        );
        assert.equal(decisions.filter((d) => d.admitted).length, 50);
        assert.equal((await store.windowState(k, 50, 60_000)).used, 50);
        await store.del(k);
      });
    });

    describe('admitCall on a budget alone (DESIGN.md section 5: admitted while budget - spent - held > 0)', () => {
      const budgetOf = () => {
        const tag = randomUUID();
        return { key: `test:{${tag}}:spent`, heldKey: `test:{${tag}}:held` };
      };
      const reserve = async (
        b: ReturnType<typeof budgetOf>,
        amount: number,
        limit: number,
        options: { id?: string; leaseMs?: number } = {},
      ) =>
        (
          await store.admitCall({
            id: options.id ?? randomUUID(),
            windowMs: 60_000,
            requests: null,
            tokens: null,
            budget: { ...b, limit, amount, leaseMs: options.leaseMs ?? 60_000 },
          })
        ).budget;
      const clear = async (b: ReturnType<typeof budgetOf>) => {
        await store.del(b.key);
        await store.del(b.heldKey);
      };

      test('answers missing without creating the counter; once seeded a call is admitted whatever its amount', async () => {
        const b = budgetOf();
        assert.deepEqual(await reserve(b, 5, 100), { status: 'missing' });
        assert.equal(await store.get(b.key), null);
        assert.equal(await store.setIfAbsent(b.key, '0', 60_000), true);
        assert.deepEqual(await reserve(b, 500, 50), { status: 'admitted', spent: 0, held: 500 });
        assert.deepEqual(await reserve(b, 1, 50), { status: 'rejected', spent: 0, held: 500 });
        assert.equal(await store.get(b.key), '0', 'reservations are not spend');
        await clear(b);
      });

      test('admits while anything is left, with fractional cents', async () => {
        const b = budgetOf();
        await store.setIfAbsent(b.key, '10.25', 60_000);
        assert.deepEqual(await reserve(b, 0.5, 11), { status: 'admitted', spent: 10.25, held: 0.5 });
        assert.deepEqual(await reserve(b, 0.5, 10.75), { status: 'rejected', spent: 10.25, held: 0.5 });
        assert.deepEqual(await reserve(b, 0.5, 11), { status: 'admitted', spent: 10.25, held: 1 });
        await clear(b);
      });

      test('200 concurrent reservations hold at most one amount past the limit', async () => {
        const b = budgetOf();
        await store.setIfAbsent(b.key, '0', 60_000);
        const decisions = await Promise.all(Array.from({ length: 200 }, () => reserve(b, 3, 50)));
        const admitted = decisions.filter((d) => d?.status === 'admitted');
        assert.equal(admitted.length, 17, '16 calls hold 48, the 17th sees 2 left and takes 3');
        await clear(b);
      });

      test('a renewal takes again a reservation the store lost (its lease lapsed in a stall) with its cents', async () => {
        const b = budgetOf();
        await store.setIfAbsent(b.key, '0', 60_000);
        assert.equal((await reserve(b, 30, 50, { id: 'stalled', leaseMs: 100 }))?.status, 'admitted');
        await sleep(150);
        assert.deepEqual(
          await reserve(b, 1, 50, { id: 'probe', leaseMs: 100 }),
          { status: 'admitted', spent: 0, held: 1 },
          'the lease lapsed',
        );
        await store.renewReservations({
          heldKey: b.heldKey,
          reservations: [{ id: 'stalled', cost: 30 }],
          leaseMs: 60_000,
        });
        // Held again: the stalled call's 30, the probe's 1 and this call's 25.
        assert.deepEqual(await reserve(b, 25, 50, { id: 'next', leaseMs: 60_000 }), {
          status: 'admitted',
          spent: 0,
          held: 56,
        });
        await clear(b);
      });

      test('rebuildBudget seeds a lost counter once and takes the reservations in flight the log lacks', async () => {
        const b = budgetOf();
        const rebuild = { ...b, ttlMs: 60_000, leaseMs: 60_000 };
        const first = [
          { id: 'a', cost: 10 },
          { id: 'b', cost: 15 },
        ];
        assert.equal(await store.rebuildBudget({ ...rebuild, spentCents: 20, reservations: first }), true);
        // Another replica's rebuild: the counter stands, its own reservation joins, 'a' is not taken twice.
        const second = [
          { id: 'a', cost: 10 },
          { id: 'c', cost: 5 },
        ];
        assert.equal(await store.rebuildBudget({ ...rebuild, spentCents: 99, reservations: second }), false);
        assert.equal(Number(await store.get(b.key)), 20);
        assert.deepEqual(await reserve(b, 1, 100, { id: 'probe' }), {
          status: 'admitted',
          spent: 20,
          held: 31,
        });
        assert.ok(((await store.ttlMs(b.key)) ?? 0) > 0, 'the seeded counter expires');
        await clear(b);
      });

      test('settlement releases a reservation and adds the cost; renewal keeps a reservation past its lease', async () => {
        const b = budgetOf();
        await store.setIfAbsent(b.key, '0', 60_000);
        assert.equal((await reserve(b, 40, 50, { id: 'long', leaseMs: 300 }))?.status, 'admitted');
        assert.equal((await reserve(b, 40, 50, { id: 'dead', leaseMs: 300 }))?.status, 'admitted');
        for (let i = 0; i < 4; i++) {
          await sleep(120);
          await store.renewReservations({
            heldKey: b.heldKey,
            reservations: [{ id: 'long', cost: 40 }],
            leaseMs: 300,
          });
        }
        // 'dead' was never renewed (its process died) and left; 'long' still holds all 40.
        assert.deepEqual(await reserve(b, 1, 40, { id: 'probe', leaseMs: 300 }), {
          status: 'rejected',
          spent: 0,
          held: 40,
        });
        await store.settleCalls({
          windowMs: 60_000,
          tokens: null,
          budget: { ...b, costCents: 12.5, release: ['long'], leaseMs: 300 },
        });
        assert.equal(Number(await store.get(b.key)), 12.5);
        assert.deepEqual(await reserve(b, 1, 40, { id: 'next', leaseMs: 300 }), {
          status: 'admitted',
          spent: 12.5,
          held: 1,
        });
        await clear(b);
      });
    });

    describe('admitCall and settleCall', () => {
      /** The limits of one virtual key: one hash tag, as LIMIT_KEYS builds them. */
      const limitsOf = () => {
        const tag = randomUUID();
        return {
          rpm: `test:{${tag}}:rpm`,
          tpm: `test:{${tag}}:tpm`,
          budget: `test:{${tag}}:spent`,
          held: `test:{${tag}}:held`,
        };
      };
      const call = (
        k: ReturnType<typeof limitsOf>,
        id: string,
        limits: {
          rpm?: number;
          tpm?: number;
          cost?: number;
          budget?: number;
          amount?: number;
          windowMs?: number;
        },
      ) =>
        store.admitCall({
          id,
          windowMs: limits.windowMs ?? 60_000,
          requests: limits.rpm === undefined ? null : { key: k.rpm, limit: limits.rpm },
          tokens: limits.tpm === undefined ? null : { key: k.tpm, limit: limits.tpm, cost: limits.cost ?? 0 },
          budget:
            limits.budget === undefined
              ? null
              : {
                  key: k.budget,
                  heldKey: k.held,
                  limit: limits.budget,
                  amount: limits.amount ?? 0,
                  leaseMs: 60_000,
                },
        });

      /** The calls in the request window, read the only way it can be: by a call it refuses (limit 0). */
      const callsIn = async (k: ReturnType<typeof limitsOf>) =>
        (await call(k, 'probe', { rpm: 0 })).requests?.used;

      test('counts calls up to the request limit; a refused call waits for the call whose leaving makes room', async () => {
        const k = limitsOf();
        const count = (id: string, rpm: number) => call(k, id, { rpm, windowMs: 400 });
        const first = await count('old', 3);
        assert.deepEqual([first.admitted, first.requests?.used, first.requests?.remaining], [true, 1, 2]);
        assert.equal(first.requests?.retryAfterMs, 0);
        assert.ok((first.requests?.resetMs ?? 0) > 350, `resetMs ${first.requests?.resetMs}`);
        await sleep(150);
        await count('mid', 3);
        assert.equal((await count('mid', 3)).requests?.used, 2, 'the same id is counted once');
        await count('new', 3);
        const refused = await count('fourth', 3);
        assert.deepEqual(
          [refused.admitted, refused.requests?.used, refused.requests?.remaining],
          [false, 3, 0],
        );
        // 'old' leaves about 250 ms from now, 'mid' and 'new' about 400 ms from now.
        const retry = refused.requests?.retryAfterMs ?? 0;
        assert.ok(retry > 0 && retry <= 260, `retryAfterMs ${retry}`);
        const reset = refused.requests?.resetMs ?? 0;
        assert.ok(reset > 300 && reset <= 400, `resetMs ${reset}`);
        const lower = (await count('fifth', 2)).requests;
        assert.ok((lower?.retryAfterMs ?? 0) > 300, `two must leave: ${lower?.retryAfterMs}`);
        const none = (await count('sixth', 0)).requests;
        assert.equal(none?.retryAfterMs, none?.resetMs, 'a limit of 0 waits for the reset');
        await sleep(reset + 30);
        const later = await count('seventh', 3);
        assert.deepEqual([later.admitted, later.requests?.used], [true, 1], 'the calls left the window');
      });

      test('admits when every limit has room, and each takes its share', async () => {
        const k = limitsOf();
        await store.setIfAbsent(k.budget, '10', 60_000);
        const decision = await call(k, 'r1', { rpm: 5, tpm: 1000, cost: 300, budget: 100, amount: 2.5 });
        assert.equal(decision.admitted, true);
        assert.deepEqual(
          [decision.requests?.admitted, decision.requests?.used, decision.requests?.remaining],
          [true, 1, 4],
        );
        assert.deepEqual([decision.tokens?.admitted, decision.tokens?.used], [true, 300]);
        assert.deepEqual(decision.budget, { status: 'admitted', spent: 10, held: 2.5 });
        assert.equal((await store.windowState(k.tpm, 1000, 60_000)).used, 300);
        assert.equal(await store.get(k.budget), '10', 'the reservation is held apart from spend');
      });

      test('takes nothing when one limit refuses, and says which', async () => {
        const k = limitsOf();
        await store.setIfAbsent(k.budget, '0', 60_000);
        assert.equal(
          (await call(k, 'r1', { rpm: 5, tpm: 1000, cost: 800, budget: 100, amount: 1 })).admitted,
          true,
        );
        const refused = await call(k, 'r2', { rpm: 5, tpm: 1000, cost: 300, budget: 100, amount: 1 });
        assert.equal(refused.admitted, false);
        assert.equal(refused.requests?.admitted, true, 'the request window alone had room');
        assert.equal(refused.requests?.used, 1, 'and took nothing');
        assert.equal(refused.tokens?.admitted, false);
        assert.equal(refused.tokens?.used, 800);
        assert.ok((refused.tokens?.retryAfterMs ?? 0) > 0, 'the refused window says when it has room');
        assert.deepEqual(
          refused.budget,
          { status: 'admitted', spent: 0, held: 1 },
          'the budget took nothing',
        );
        assert.equal(await callsIn(k), 1);

        const overBudget = await call(k, 'r3', { rpm: 5, budget: 1, amount: 1 });
        assert.equal(overBudget.admitted, false);
        assert.deepEqual(overBudget.budget, { status: 'rejected', spent: 0, held: 1 });
        assert.equal(await callsIn(k), 1);
      });

      test('refuses with budget missing, taking nothing, until the counter is seeded', async () => {
        const k = limitsOf();
        const missing = await call(k, 'r1', { rpm: 5, budget: 100, amount: 1 });
        assert.equal(missing.admitted, false);
        assert.deepEqual(missing.budget, { status: 'missing' });
        assert.equal(await store.get(k.budget), null, 'not created');
        assert.equal(await callsIn(k), 0);
        await store.setIfAbsent(k.budget, '7', 60_000);
        const admitted = await call(k, 'r1', { rpm: 5, budget: 100, amount: 1 });
        assert.equal(admitted.admitted, true);
        assert.deepEqual(admitted.budget, { status: 'admitted', spent: 7, held: 1 });
      });

      test('checks only the limits asked for', async () => {
        const k = limitsOf();
        const decision = await call(k, 'r1', { tpm: 100, cost: 40 });
        assert.deepEqual([decision.admitted, decision.requests, decision.budget], [true, null, null]);
        assert.equal(decision.tokens?.used, 40);
      });

      test('100 concurrent calls never pass any limit', async () => {
        const k = limitsOf();
        await store.setIfAbsent(k.budget, '0', 60_000);
        const decisions = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            call(k, `r${i}`, { rpm: 40, tpm: 10_000, cost: 200, budget: 1000, amount: 25 }),
          ),
        );
        // TPM holds 50 calls, RPM 40, the budget 40 (each sees some left before it): 40 pass.
        assert.equal(decisions.filter((d) => d.admitted).length, 40);
        assert.equal(await callsIn(k), 40);
        assert.equal((await store.windowState(k.tpm, 10_000, 60_000)).used, 8000);
        assert.equal(await store.get(k.budget), '0');
      });

      test('settleCalls replaces each token entry, releases the budget reservations and adds the cost when the counter exists', async () => {
        const k = limitsOf();
        await store.setIfAbsent(k.budget, '0', 60_000);
        for (const id of ['r1', 'r2', 'r3'])
          await call(k, id, { tpm: 1000, cost: 200, budget: 100, amount: 10 });
        await store.settleCalls({
          windowMs: 60_000,
          tokens: {
            key: k.tpm,
            entries: [
              { id: 'r1', cost: 120 },
              { id: 'r2', cost: 0 },
              { id: 'gone', cost: 50 },
            ],
          },
          budget: { key: k.budget, heldKey: k.held, costCents: 12.5, release: ['r1', 'r2'], leaseMs: 60_000 },
        });
        const tokens = await store.windowState(k.tpm, 1000, 60_000);
        assert.equal(
          tokens.used,
          320,
          'r1 120 + r2 released + r3 as reserved; an unknown entry is not created',
        );
        assert.equal(await store.get(k.budget), '12.5');
        const probe = await call(k, 'probe', { budget: 1000, amount: 0 });
        assert.deepEqual(probe.budget, { status: 'admitted', spent: 12.5, held: 10 }, 'r3 still holds');
        await store.settleCalls({
          windowMs: 60_000,
          tokens: { key: k.tpm, entries: [{ id: 'r3', cost: 0 }] },
          budget: null,
        });
        assert.equal((await store.windowState(k.tpm, 1000, 60_000)).used, 120);
        await store.del(k.budget);
        await store.settleCalls({
          windowMs: 60_000,
          tokens: null,
          budget: { key: k.budget, heldKey: k.held, costCents: 5, release: ['r3'], leaseMs: 60_000 },
        });
        assert.equal(await store.get(k.budget), null, 'a counter that is gone stays gone');
      });

      test('carries any call id exactly: quotes, backslashes and non-ASCII name the same entry when it is settled', async () => {
        const k = limitsOf();
        const ids = ['q"uote', 'back\\slash\\', 'é 中 🙂', '[1,"2"]', 'null'];
        for (const id of ids) {
          const decision = await call(k, id, { tpm: 1000, cost: 100 });
          assert.equal(decision.admitted, true, id);
        }
        assert.equal((await store.windowState(k.tpm, 1000, 60_000)).used, 500);
        assert.equal(
          (await call(k, ids[0], { tpm: 1000, cost: 100 })).tokens?.used,
          500,
          'the same id, counted once',
        );
        await store.settleCalls({
          windowMs: 60_000,
          tokens: { key: k.tpm, entries: ids.map((id) => ({ id, cost: 1 })) },
          budget: null,
        });
        assert.equal(
          (await store.windowState(k.tpm, 1000, 60_000)).used,
          5,
          'each entry replaced, none added',
        );
      });

      test('decides a key and its team in one step: either admits, each takes its share, and settles together', async () => {
        const tag = randomUUID();
        const team = { rpm: `test:{${tag}}:rpm`, budget: `test:{${tag}}:spent`, held: `test:{${tag}}:held` };
        const key = {
          rpm: `test:{${tag}}:k:rpm`,
          budget: `test:{${tag}}:k:spent`,
          held: `test:{${tag}}:k:held`,
        };
        await store.setIfAbsent(key.budget, '0', 60_000);
        await store.setIfAbsent(team.budget, '7', 60_000);
        const admit = (id: string, teamBudget: number) =>
          store.admitCall({
            id,
            windowMs: 60_000,
            requests: { key: key.rpm, limit: 10 },
            tokens: null,
            budget: { key: key.budget, heldKey: key.held, limit: 100, amount: 2, leaseMs: 60_000 },
            team: {
              requests: { key: team.rpm, limit: 1 },
              tokens: null,
              budget: { key: team.budget, heldKey: team.held, limit: teamBudget, amount: 2, leaseMs: 60_000 },
            },
          });
        const first = await admit('r1', 10);
        assert.equal(first.admitted, true);
        assert.deepEqual(first.budget, { status: 'admitted', spent: 0, held: 2 });
        assert.deepEqual(first.team?.budget, { status: 'admitted', spent: 7, held: 2 });
        assert.equal(first.team?.requests?.used, 1);
        const second = await admit('r2', 10);
        assert.equal(second.admitted, false, "the team's RPM refuses though the key's admits");
        assert.equal(second.requests?.admitted, true);
        assert.equal(second.team?.requests?.admitted, false);
        assert.deepEqual(second.budget, { status: 'admitted', spent: 0, held: 2 }, 'the key took nothing');
        await store.settleCalls({
          windowMs: 60_000,
          tokens: null,
          budget: { key: key.budget, heldKey: key.held, costCents: 1.5, release: ['r1'], leaseMs: 60_000 },
          team: {
            tokens: null,
            budget: {
              key: team.budget,
              heldKey: team.held,
              costCents: 1.5,
              release: ['r1'],
              leaseMs: 60_000,
            },
          },
        });
        assert.equal(await store.get(key.budget), '1.5');
        assert.equal(await store.get(team.budget), '8.5');
        const missing = await store.admitCall({
          id: 'r3',
          windowMs: 60_000,
          requests: null,
          tokens: null,
          budget: null,
          team: {
            requests: null,
            tokens: null,
            budget: { key: `test:{${tag}}:gone`, heldKey: team.held, limit: 10, amount: 1, leaseMs: 60_000 },
          },
        });
        assert.deepEqual([missing.admitted, missing.team?.budget], [false, { status: 'missing' }]);
      });
    });

    describe('pub/sub', () => {
      test('delivers to every subscriber of the channel, after publish returns, until unsubscribed', async () => {
        const channel = `test:${randomUUID()}`;
        const first: string[] = [];
        const second: string[] = [];
        const other: string[] = [];
        const unsubscribeFirst = await store.subscribe(channel, (m) => first.push(m));
        const unsubscribeSecond = await store.subscribe(channel, (m) => second.push(m));
        const unsubscribeOther = await store.subscribe(`${channel}:other`, (m) => other.push(m));
        const published = store.publish(channel, 'hello');
        assert.deepEqual(first, [], 'delivery is asynchronous');
        await published;
        await eventually(() => first.length === 1 && second.length === 1);
        assert.deepEqual([first, second, other], [['hello'], ['hello'], []]);

        await unsubscribeFirst();
        await store.publish(channel, 'again');
        await eventually(() => second.length === 2);
        assert.deepEqual(first, ['hello']);
        await unsubscribeSecond();
        await unsubscribeOther();
      });

      test('a throwing handler does not stop the others', async () => {
        const channel = `test:${randomUUID()}`;
        const received: string[] = [];
        const unsubscribeThrower = await store.subscribe(channel, () => {
          throw new Error('handler bug');
        });
        const unsubscribe = await store.subscribe(channel, (m) => received.push(m));
        await store.publish(channel, 'still delivered');
        await eventually(() => received.length === 1);
        await unsubscribeThrower();
        await unsubscribe();
      });
    });

    describe('lifecycle', () => {
      test('ping answers while open; after close every call rejects with CacheUnavailableError', async () => {
        const own = await create();
        await own.ping();
        await own.close();
        await own.close();
        await assert.rejects(own.get('anything'), CacheUnavailableError);
        await assert.rejects(own.ping(), CacheUnavailableError);
      });
    });
  });
}

/** Polls `condition` until it holds; fails after `timeoutMs`. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 3000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}
