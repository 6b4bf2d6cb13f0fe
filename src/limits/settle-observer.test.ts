import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MemoryCacheStore } from '../cache/memory-cache-store.ts';
import { DIAGNOSTICS, type UnpricedModelEvent } from '../diagnostics/diagnostics-channels.ts';
import type { Stage } from '../pipeline/stage.ts';
import { ADMISSION } from './admission.ts';
import { admitLimits } from './admission-stage.ts';
import { BudgetCounter } from './budget-counter.ts';
import { LIMIT_KEYS, RATE_WINDOW_MS } from './limit-keys.ts';
import { ReservationLeases } from './reservation-leases.ts';
import { SettleObserver } from './settle-observer.ts';
import { SpendWriter } from './spend-writer.ts';
import {
  NOTHING_IN_FLIGHT,
  TEST_COST_MODEL,
  testContext,
  testDeployment,
  testKey,
  testPool,
} from './test-support.ts';

const OK = { status: 200, error: null, streamBroken: false };

describe('settle observer', () => {
  let cache: MemoryCacheStore;
  let stage: Stage;
  let observer: SettleObserver;
  let spend: SpendWriter;
  let unpriced: UnpricedModelEvent[];
  let clamped: unknown[];
  let settleErrors: unknown[];
  let unsubscribe: Array<() => void>;
  let leases: ReservationLeases;
  const priced = testDeployment({
    id: 'dep_priced',
    pricing: { inputCentsPerMTok: 1_000, outputCentsPerMTok: 2_000 },
  });

  beforeEach(() => {
    cache = new MemoryCacheStore();
    unpriced = [];
    clamped = [];
    settleErrors = [];
    unsubscribe = [
      DIAGNOSTICS.usageClamped.subscribe((event) => clamped.push(...event.clamped)),
      DIAGNOSTICS.unpricedModel.subscribe((event) => unpriced.push(event)),
      DIAGNOSTICS.settleError.subscribe((event) => settleErrors.push(event.error)),
    ];
    spend = new SpendWriter({ flush: async () => {} });
    leases = new ReservationLeases({ cache });
    const budget = new BudgetCounter({
      cache,
      readSpendCents: async () => 0,
      pendingSpendCents: () => 0,
      ...NOTHING_IN_FLIGHT,
    });
    stage = admitLimits({ cache, budget, model: TEST_COST_MODEL, leases, poolOf: () => testPool([priced]) });
    observer = new SettleObserver({ cache, model: TEST_COST_MODEL, spend, leases });
  });
  afterEach(async () => {
    for (const stop of unsubscribe) stop();
    await cache.close();
    assert.deepEqual(settleErrors, [], 'every settlement went through');
  });

  it('prices the usage with the override, reconciles TPM and budget, and queues the spend', async () => {
    const key = testKey({ tpmLimit: 10_000, budgetCents: 100 });
    const ctx = testContext(key, { estimate: 1000, max_tokens: 1000 });
    await stage.run(ctx);
    assert.equal(ADMISSION.get(ctx)?.scopes[0].budget?.cents, 3, '1000 in + 1000 out reserved');
    ctx.servedBy = priced;
    ctx.usage = { inputTokens: 500, outputTokens: 250 };
    observer.onCallFinished(ctx, OK);
    await observer.idle();
    assert.equal(ctx.costCents, 1, '500 * 10 + 250 * 20 millionths of a dollar-cent');
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget(key.id))), 1);
    assert.equal((await cache.windowState(LIMIT_KEYS.tpm(key.id), 10_000, RATE_WINDOW_MS)).used, 750);
    assert.equal(spend.pendingFor(key.id), 1);
  });

  it('takes one cache-store operation to admit a call on every limit and one to settle it', async () => {
    const operations: string[] = [];
    const counted = new Proxy(cache, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          operations.push(String(name));
          return value.apply(target, args);
        };
      },
    });
    const budget = new BudgetCounter({
      cache: counted,
      readSpendCents: async () => 0,
      pendingSpendCents: () => 0,
      ...NOTHING_IN_FLIGHT,
    });
    const countedStage = admitLimits({
      cache: counted,
      budget,
      model: TEST_COST_MODEL,
      leases,
      poolOf: () => testPool([priced]),
    });
    const countedObserver = new SettleObserver({ cache: counted, model: TEST_COST_MODEL, spend, leases });
    const key = testKey({ rpmLimit: 100, tpmLimit: 100_000, budgetCents: 100 });
    const call = async () => {
      const ctx = testContext(key, { estimate: 1000, max_tokens: 1000 });
      await countedStage.run(ctx);
      ctx.servedBy = priced;
      ctx.usage = { inputTokens: 500, outputTokens: 250 };
      countedObserver.onCallFinished(ctx, OK);
      await countedObserver.idle();
    };
    await call();
    assert.deepEqual(
      operations,
      ['admitCall', 'rebuildBudget', 'admitCall', 'settleCalls'],
      'the first call seeds the budget',
    );
    operations.length = 0;
    await call();
    assert.deepEqual(operations, ['admitCall', 'settleCalls']);

    operations.length = 0;
    const together = Array.from({ length: 5 }, () => testContext(key, { estimate: 1000, max_tokens: 1000 }));
    for (const ctx of together) await countedStage.run(ctx);
    for (const ctx of together) {
      ctx.servedBy = priced;
      ctx.usage = { inputTokens: 500, outputTokens: 250 };
      countedObserver.onCallFinished(ctx, OK);
    }
    await countedObserver.idle();
    assert.deepEqual(
      operations,
      [...Array(5).fill('admitCall'), 'settleCalls', 'settleCalls'],
      'the first call of the key is settled at once, the four that finished meanwhile together',
    );
    assert.equal((await cache.windowState(LIMIT_KEYS.tpm(key.id), 100_000, RATE_WINDOW_MS)).used, 7 * 750);
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget(key.id))), 7);
    assert.deepEqual(clamped, [], 'no honest usage is clamped');
  });

  it('releases the reservations of a call nothing served', async () => {
    const key = testKey({ tpmLimit: 10_000, budgetCents: 100 });
    const ctx = testContext(key, { estimate: 1000, max_tokens: 1000 });
    await stage.run(ctx);
    observer.onCallFinished(ctx, { status: 502, error: null, streamBroken: false });
    await observer.idle();
    assert.equal(ctx.costCents, 0);
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget(key.id))), 0);
    assert.equal((await cache.windowState(LIMIT_KEYS.tpm(key.id), 10_000, RATE_WINDOW_MS)).used, 0);
    assert.equal(spend.pendingFor(key.id), 0);
    const after = testContext(key, { estimate: 1000, max_tokens: 1000 });
    await stage.run(after);
    assert.equal(ADMISSION.get(after)?.scopes[0].budget?.cents, 3, 'admitted: nothing is held any more');
  });

  it('clamps negative, absurd and non-finite token counts to the model before billing, and tells', async () => {
    const key = testKey({ budgetCents: 1_000 });
    const ctx = testContext(key, { estimate: 10, max_tokens: 10 });
    await stage.run(ctx);
    ctx.servedBy = priced;
    ctx.usage = { inputTokens: 1e15, outputTokens: -50, cachedInputTokens: Number.NaN };
    observer.onCallFinished(ctx, OK);
    await observer.idle();
    // The cataloged model: a 100,000-token window plus 4,000 of output bound any count.
    assert.deepEqual(ctx.usage, { inputTokens: 104_000, outputTokens: 0, cachedInputTokens: 0 });
    assert.equal(ctx.costCents, 104);
    assert.deepEqual(
      clamped.map((field) => (field as { field: string }).field),
      ['inputTokens', 'outputTokens', 'cachedInputTokens'],
    );
    assert.equal(Number(await cache.get(LIMIT_KEYS.budget(key.id))), 104);
  });

  it('keeps the TPM reservation of an answer served without usage', async () => {
    const key = testKey({ tpmLimit: 10_000 });
    const ctx = testContext(key, { estimate: 10, max_tokens: 10 });
    await stage.run(ctx);
    ctx.servedBy = priced;
    observer.onCallFinished(ctx, OK);
    await observer.idle();
    assert.equal((await cache.windowState(LIMIT_KEYS.tpm(key.id), 10_000, RATE_WINDOW_MS)).used, 20);
  });

  it('falls back to the catalog price, and records an unpriced model at zero cost, telling once', async () => {
    const cataloged = testDeployment({ id: 'dep_cat', upstreamModel: 'cataloged' });
    const ctx = testContext(null);
    ctx.servedBy = cataloged;
    ctx.usage = { inputTokens: 100_000, outputTokens: 0 };
    observer.onCallFinished(ctx, OK);
    assert.equal(ctx.costCents, 10);

    const unknown = testDeployment({ id: 'dep_unknown', upstreamModel: 'mystery' });
    for (let i = 0; i < 3; i++) {
      const call = testContext(testKey());
      call.servedBy = unknown;
      call.usage = { inputTokens: 1000, outputTokens: 1000 };
      observer.onCallFinished(call, OK);
      assert.equal(call.costCents, 0);
    }
    assert.deepEqual(
      unpriced.map((d) => d.upstreamModel),
      ['mystery'],
    );
  });

  it('does not recreate a budget counter the store lost before the call ended', async () => {
    const key = testKey({ budgetCents: 100 });
    const ctx = testContext(key, { estimate: 1000, max_tokens: 1000 });
    await stage.run(ctx);
    await cache.del(LIMIT_KEYS.budget(key.id));
    ctx.servedBy = priced;
    ctx.usage = { inputTokens: 10, outputTokens: 10 };
    observer.onCallFinished(ctx, OK);
    await observer.idle();
    assert.equal(
      await cache.get(LIMIT_KEYS.budget(key.id)),
      null,
      'the next call seeds it from the database',
    );
  });
});
