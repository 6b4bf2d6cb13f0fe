import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@redis/client';
import { estimateInputTokens } from '../../src/formats/estimate-tokens.ts';
import { LIMIT_KEYS } from '../../src/limits/limit-keys.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startRedisServer, type TestRedisServer } from '../helpers/redis-server.ts';
import { client, createDeployment, createKey, spendCents, waitUntil } from './support.ts';

/**
 * Issue 30 finding 8: a Redis FLUSHDB (or a failover to an empty replica) while a key's calls are
 * in flight lost their reservations, and the counter was seeded from the database alone, so the
 * calls admitted after it spent the budget a second time (131 cents on a 50-cent budget). The
 * rebuild must count the calls in flight and the spend not yet written, so the key still ends at
 * most one call's worst case over, and the calls in flight settle into the rebuilt counter.
 * Runs on the test's own redis-server: FLUSHDB on the shared one would wipe other tests' keys.
 */

const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };
const MAX_TOKENS = 100;
const BODY = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: MAX_TOKENS };
const INPUT = estimateInputTokens('chat.completions', BODY);
/** Every call is billed its whole bound's output: the overspend is then as large as it can be. */
const CALL_CENTS = INPUT + MAX_TOKENS;
const CALLS_IN_BUDGET = 10;
/** Few enough that the calls finish one after another, not in one wave; staggered by a quarter call. */
const WORKERS = 5;
const LATENCY_MS = 400;

function reply() {
  return {
    id: 'chatcmpl-flush',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null },
    ],
    usage: { prompt_tokens: INPUT, completion_tokens: MAX_TOKENS, total_tokens: CALL_CENTS },
  };
}

async function flushDb(url: string): Promise<void> {
  const admin = createClient({ url });
  await admin.connect();
  try {
    await admin.flushDb();
  } finally {
    await admin.close();
  }
}

/** A connection made before the load, so the flush is one round trip when its moment comes. */
async function connectAdmin(url: string) {
  const admin = createClient({ url });
  await admin.connect();
  return admin;
}

/** A call's outcome: served, or the budget refusal's code. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'served';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe('a Redis FLUSHDB while budget reservations are in flight (own redis-server, Postgres)', () => {
  let redis: TestRedisServer;
  let fake: OpenAIFake;
  let gw: TestGateway;

  before(async () => {
    redis = await startRedisServer();
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ env: { REDIS_URL: redis.url } });
    await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl, pricing: CENT_A_TOKEN });
  });

  after(async () => {
    await gw?.close();
    await fake?.close();
    await redis?.close();
  });

  it('flushdb mid-load spends the budget once: at most one worst case over, in-flight calls settle', async () => {
    const budget = CALLS_IN_BUDGET * CALL_CENTS;
    const key = await createKey(gw, { budgetCents: budget });
    const openai = client(gw, key.key);
    for (let i = 0; i < 200; i++) fake.enqueue({ status: 200, body: reply() });
    fake.latencyMs = LATENCY_MS;
    let served = 0;
    let worstCase = 0;
    let exhausted = false;
    let flushed: Promise<void> | null = null;
    let flushDone = false;
    const admin = await connectAdmin(redis.url);
    // Regression (the precondition was polled every 25 ms and, on a loaded machine, calls finishing
    // together closed its window between two polls): the flush is decided on each call served, the
    // only moment the condition can become true. It is when the calls in flight hold the rest of the
    // budget, so all of it is lost with them; a call counts in flight once it reached the fake.
    const flushWhenHeld = () => {
      if (flushed === null && served >= CALLS_IN_BUDGET - WORKERS + 1 && fake.requests.length - served >= 3) {
        flushed = admin.flushDb().then(() => {
          flushDone = true;
        });
      }
    };
    const deadline = Date.now() + 30_000;
    const worker = async (index: number) => {
      await sleep((index * LATENCY_MS) / WORKERS);
      while (!exhausted && Date.now() < deadline) {
        try {
          await openai.chat.completions.create(BODY);
          served++;
          flushWhenHeld();
        } catch (error) {
          const { code, message } = error as { code?: string; message: string };
          assert.ok(code === 'budget_reserved' || code === 'budget_exceeded', message);
          worstCase = Number(/could cost up to ([\d.]+) cents/.exec(message)?.[1]);
          // Spent before the flush landed (a loaded machine): go on, so a call is admitted after it.
          if (code === 'budget_exceeded' && flushDone) exhausted = true;
          else await sleep(50);
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i))).finally(() => admin.close());
    assert.ok(flushed !== null, 'calls served before the flush, and at least 3 in flight at the upstream');
    await flushed;
    fake.reset();
    assert.ok(exhausted, 'the budget ran out before the deadline');
    assert.ok(worstCase >= CALL_CENTS, `the worst case ${worstCase} covers a call's ${CALL_CENTS}`);

    await waitUntil(
      async () => (await spendCents(gw.database?.url ?? '', key.id)) === served * CALL_CENTS,
      'the spend of every call served written',
    );
    const spent = served * CALL_CENTS;
    assert.ok(
      spent <= budget + worstCase,
      `${served} calls served, ${spent} cents of ${budget}: more than one worst case (${worstCase}) over`,
    );
    // The calls in flight at the flush settled into the rebuilt counter and released their holds.
    const store = createClient({ url: redis.url });
    await store.connect();
    try {
      const prefix = gw.env.REDIS_KEY_PREFIX;
      await waitUntil(
        async () => (await store.get(`${prefix}${LIMIT_KEYS.budgetHeld(key.id)}:sum`)) === null,
        'every reservation released',
      );
      const counter = Number(await store.get(`${prefix}${LIMIT_KEYS.budget(key.id)}`));
      assert.equal(counter, spent, 'the rebuilt counter holds every call once');
    } finally {
      await store.close();
    }
  });

  it("a second replica's calls in flight count again once the first rebuilt the budget (the announcement)", async () => {
    const second = await startTestGateway({ database: gw.database, env: gw.env });
    try {
      const budget = CALLS_IN_BUDGET * CALL_CENTS;
      const key = await createKey(gw, { budgetCents: budget });
      const [onFirst, onSecond] = [client(gw, key.key), client(second, key.key)];
      for (let i = 0; i < 20; i++) fake.enqueue({ status: 200, body: reply() });
      fake.latencyMs = 1_500;
      // Eight calls in flight, four on each replica; none has settled when the store is flushed.
      const wave = Array.from({ length: 8 }, (_, i) =>
        outcome((i % 2 === 0 ? onFirst : onSecond).chat.completions.create(BODY)),
      );
      await waitUntil(async () => fake.requests.length >= 8, 'the first wave reached the upstream');
      await flushDb(redis.url);
      // The first replica rebuilds with its four and tells the second, which holds its four again.
      const rebuilding = outcome(onFirst.chat.completions.create(BODY));
      await sleep(200);
      const after = Array.from({ length: 6 }, (_, i) =>
        outcome((i % 2 === 0 ? onFirst : onSecond).chat.completions.create(BODY)),
      );
      const outcomes = await Promise.all([...wave, rebuilding, ...after]);
      const served = outcomes.filter((result) => result === 'served').length;
      assert.ok(
        outcomes.every(
          (result) => result === 'served' || result === 'budget_reserved' || result === 'budget_exceeded',
        ),
        outcomes.join(', '),
      );
      // Ten calls fit the budget; without the second replica's holds six more would have been let in.
      assert.ok(served <= CALLS_IN_BUDGET + 1, `${served} calls served of a budget of ${CALLS_IN_BUDGET}`);
    } finally {
      fake.reset();
      await second.close();
    }
  });
});
