import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MemoryCacheStore } from '../cache/memory-cache-store.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { estimatedInputTokensOf } from '../pipeline/call-context.ts';
import type { Stage } from '../pipeline/stage.ts';
import { ADMISSION } from './admission.ts';
import { admitLimits } from './admission-stage.ts';
import { BudgetCounter } from './budget-counter.ts';
import { LIMIT_KEYS } from './limit-keys.ts';
import { ReservationLeases } from './reservation-leases.ts';
import {
  NOTHING_IN_FLIGHT,
  TEST_COST_MODEL,
  testContext,
  testDeployment,
  testKey,
  testPool,
} from './test-support.ts';
import { OUTPUT_RESERVATION_FLOOR_TOKENS } from './token-reservation.ts';

describe('admission stage', () => {
  let cache: MemoryCacheStore;
  let stage: Stage;
  let storedSpend: number;
  let leases: ReservationLeases;
  const pool = [
    testDeployment({ id: 'dep_cheap', pricing: { inputCentsPerMTok: 100, outputCentsPerMTok: 100 } }),
    testDeployment({ id: 'dep_dear', pricing: { inputCentsPerMTok: 1_000, outputCentsPerMTok: 3_000 } }),
  ];

  beforeEach(() => {
    cache = new MemoryCacheStore();
    storedSpend = 0;
    const budget = new BudgetCounter({
      cache,
      readSpendCents: async () => storedSpend,
      pendingSpendCents: () => 0,
      ...NOTHING_IN_FLIGHT,
    });
    leases = new ReservationLeases({ cache });
    stage = admitLimits({
      cache,
      budget,
      model: TEST_COST_MODEL,
      leases,
      poolOf: () => testPool(pool),
    });
  });
  afterEach(() => cache.close());

  async function refusal(run: Promise<unknown>): Promise<GatewayError> {
    try {
      await run;
    } catch (error) {
      assert.ok(error instanceof GatewayError);
      return error;
    }
    assert.fail('expected a refusal');
  }

  it('lets the master key and unlimited keys through without touching the store', async () => {
    for (const ctx of [testContext(null), testContext(testKey())]) {
      assert.deepEqual(await stage.run(ctx), { kind: 'continue' });
      assert.deepEqual(ctx.responseHeaders, {});
      assert.equal(ADMISSION.get(ctx), undefined);
    }
  });

  it('estimates the input once per call and leaves it for later readers (the router)', async () => {
    let estimates = 0;
    const counting = admitLimits({
      cache,
      budget: new BudgetCounter({
        cache,
        readSpendCents: async () => 0,
        pendingSpendCents: () => 0,
        ...NOTHING_IN_FLIGHT,
      }),
      model: {
        ...TEST_COST_MODEL,
        estimateInputTokens: (operation, body) => {
          estimates++;
          return TEST_COST_MODEL.estimateInputTokens(operation, body);
        },
      },
      leases,
      poolOf: () => testPool(pool),
    });
    const ctx = testContext(testKey({ tpmLimit: 10_000 }));
    await counting.run(ctx);
    assert.equal(estimates, 1);
    const reused = estimatedInputTokensOf(ctx, () => assert.fail('estimated a second time'));
    assert.equal(reused, ctx.estimatedInputTokens);
  });

  it('admits exactly rpmLimit calls, then refuses with Retry-After and the window state', async () => {
    const key = testKey({ rpmLimit: 3 });
    for (let n = 1; n <= 3; n++) {
      const ctx = testContext(key);
      await stage.run(ctx);
      assert.equal(ctx.responseHeaders['x-ratelimit-limit-requests'], '3');
      assert.equal(ctx.responseHeaders['x-ratelimit-remaining-requests'], String(3 - n));
      assert.match(ctx.responseHeaders['x-ratelimit-reset-requests'], /^(59(\.\d+)?s|1m0s)$/);
      assert.equal(
        ctx.responseHeaders['x-ratelimit-limit-tokens'],
        undefined,
        'no TPM limit, no token headers',
      );
    }
    const ctx = testContext(key);
    const error = await refusal(Promise.resolve(stage.run(ctx)));
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.equal(error.status, 429);
    assert.ok(
      error.retryAfterSeconds != null && error.retryAfterSeconds >= 59 && error.retryAfterSeconds <= 60,
    );
    assert.equal(ctx.responseHeaders['x-ratelimit-remaining-requests'], '0');
    assert.equal(ADMISSION.get(ctx), undefined);
  });

  it('reserves input plus the requested output bound, or the floor, on the TPM window', async () => {
    const key = testKey({ tpmLimit: 100_000 });
    const bounded = testContext(key, { estimate: 40, max_tokens: 60 });
    await stage.run(bounded);
    assert.equal(ADMISSION.get(bounded)?.scopes[0].reservedTokens, 100);
    assert.equal(bounded.responseHeaders['x-ratelimit-remaining-tokens'], String(100_000 - 100));
    const unbounded = testContext(key, { estimate: 40 });
    await stage.run(unbounded);
    assert.equal(ADMISSION.get(unbounded)?.scopes[0].reservedTokens, 40 + OUTPUT_RESERVATION_FLOOR_TOKENS);
  });

  it('caps a TPM reservation at the limit, and refuses an input that can never fit', async () => {
    const key = testKey({ tpmLimit: 500 });
    const ctx = testContext(key, { estimate: 40 });
    await stage.run(ctx);
    assert.equal(ADMISSION.get(ctx)?.scopes[0].reservedTokens, 500);
    const huge = testContext(testKey({ id: 'key_other', tpmLimit: 500 }), { estimate: 501 });
    const error = await refusal(Promise.resolve(stage.run(huge)));
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.match(error.publicMessage, /input alone exceeds/);
  });

  it('gives back the RPM slot of a call the TPM window refuses', async () => {
    const key = testKey({ rpmLimit: 10, tpmLimit: 100 });
    await stage.run(testContext(key, { estimate: 50, max_tokens: 10 }));
    const ctx = testContext(key, { estimate: 50, max_tokens: 10 });
    const error = await refusal(Promise.resolve(stage.run(ctx)));
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.equal(
      ctx.responseHeaders['x-ratelimit-remaining-requests'],
      '9',
      'the refused call holds no slot',
    );
    assert.equal(ctx.responseHeaders['x-ratelimit-remaining-tokens'], '40');
    const rpm = await cache.windowState(LIMIT_KEYS.rpm(key.id), 10, 60_000);
    assert.equal(rpm.used, 1);
  });

  // Contract changed on purpose (issue 19, DESIGN.md section 5): a call is admitted while the
  // budget minus spend minus the reservations in flight is above zero, and reserves its worst case.
  it("reserves the worst case at the pool's highest price; refuses budget_reserved while held, budget_exceeded once spent", async () => {
    // 1000 input + 1000 output tokens at the dearest deployment: 1 + 3 = 4 cents.
    const key = testKey({ budgetCents: 10 });
    const body = { estimate: 1000, max_tokens: 1000 };
    const admitted = [];
    for (let n = 0; n < 3; n++) {
      const ctx = testContext(key, body);
      await stage.run(ctx);
      admitted.push(ctx);
    }
    assert.equal(ADMISSION.get(admitted[0])?.scopes[0].budget?.cents, 4);
    const held = await refusal(Promise.resolve(stage.run(testContext(key, body))));
    assert.equal(held.code, 'budget_reserved', '12 cents held of 10: the fourth waits');
    assert.equal(held.openaiType, 'rate_limit_error');
    assert.equal(held.retryAfterSeconds, 1);
    assert.match(held.publicMessage, /10 cents left of 10 cents, 12 cents of it reserved/);
    assert.match(held.publicMessage, /could cost up to 4 cents/);
    assert.match(held.publicMessage, /max_tokens/);
    assert.equal(await cache.get(LIMIT_KEYS.budget(key.id)), '0', 'reservations are not spend');

    await cache.set(LIMIT_KEYS.budget(key.id), '10', 60_000);
    await cache.del(LIMIT_KEYS.budgetHeld(key.id));
    const spent = await refusal(Promise.resolve(stage.run(testContext(key, body))));
    assert.equal(spent.code, 'budget_exceeded');
    assert.equal(spent.openaiType, 'insufficient_quota');
    assert.equal(spent.retryAfterSeconds, null, 'no Retry-After: no budget period resets it');
    assert.equal(spent.shouldRetry, false);
    assert.match(
      spent.publicMessage,
      /10 cents spent of 10 cents, nothing left; this request could cost up to 4 cents/,
    );
  });

  it("admits a fresh key whatever the call's worst case, which without max_tokens is the catalog's maximum output", async () => {
    const key = testKey({ budgetCents: 0.5 });
    const ctx = testContext(key, { estimate: 1000 });
    await stage.run(ctx);
    // 1000 input + 4000 output (the catalog's maximum) at 10 and 30 cents per thousand.
    assert.equal(ADMISSION.get(ctx)?.scopes[0].budget?.cents, 1 + 12);
    const held = await refusal(Promise.resolve(stage.run(testContext(key, { estimate: 1000 }))));
    assert.equal(held.code, 'budget_reserved');
  });

  it('prices the reservation on the deployments pre-flight found eligible, with its input estimate', async () => {
    const ctx = testContext(testKey({ budgetCents: 10, tpmLimit: 100_000 }), {
      estimate: 1000,
      max_tokens: 1000,
    });
    ctx.eligibleDeploymentIds = new Set(['dep_cheap']);
    ctx.estimatedInputTokens = 500;
    await stage.run(ctx);
    assert.equal(ADMISSION.get(ctx)?.scopes[0].reservedTokens, 1500);
    assert.equal(ADMISSION.get(ctx)?.scopes[0].budget?.cents, (500 * 100 + 1000 * 100) / 1e6);
  });

  it('seeds a missing budget counter from the stored spend', async () => {
    storedSpend = 10;
    const key = testKey({ budgetCents: 10, spendCents: 0 });
    const error = await refusal(
      Promise.resolve(stage.run(testContext(key, { estimate: 1000, max_tokens: 1000 }))),
    );
    assert.equal(error.code, 'budget_exceeded', 'the stored spend counts, not the cached key');
    assert.equal(await cache.get(LIMIT_KEYS.budget(key.id)), '10');
  });

  it('gives back the RPM slot and TPM tokens of a call the budget refuses', async () => {
    storedSpend = 10;
    const key = testKey({ rpmLimit: 5, tpmLimit: 10_000, budgetCents: 10 });
    const ctx = testContext(key, { estimate: 10, max_tokens: 10 });
    const error = await refusal(Promise.resolve(stage.run(ctx)));
    assert.equal(error.code, 'budget_exceeded');
    assert.equal(ctx.responseHeaders['x-ratelimit-remaining-requests'], '5');
    assert.equal(ctx.responseHeaders['x-ratelimit-remaining-tokens'], '10000');
  });

  it('fails with the store error when the store is down, holding nothing', async () => {
    await cache.close();
    const ctx = testContext(testKey({ rpmLimit: 5 }));
    await assert.rejects(Promise.resolve(stage.run(ctx)), { name: 'CacheUnavailableError' });
  });
});
