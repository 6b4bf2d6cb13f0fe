import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { LIMIT_KEYS } from '../../src/limits/limit-keys.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { spawnMain, waitForListening } from '../helpers/child.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import {
  client,
  closeTo,
  createDeployment,
  createKey,
  failure,
  hi,
  recordedCostCents,
  spendCents,
  tokensUsed,
  waitUntil,
} from './support.ts';

/** 1 cent a token, so a call's cost in cents is its token count. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };

/** The tokens (= cents at CENT_A_TOKEN) one `hi` call reserves, read off a TPM probe. */
async function reservationOfHi(gw: TestGateway): Promise<number> {
  const probe = await createKey(gw, { tpmLimit: 1_000_000 });
  const { response } = await client(gw, probe.key).chat.completions.create(hi('chat')).withResponse();
  return 1_000_000 - Number(response.headers.get('x-ratelimit-remaining-tokens'));
}

describe('budgets and spend under concurrency', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl, pricing: CENT_A_TOKEN });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  // Contract changed on purpose (issue 19, DESIGN.md section 5): a call is admitted while the
  // budget minus spend minus the reservations in flight is above zero, so the calls refused while
  // others hold the budget answer budget_reserved, and the key is served until it has spent it.
  it('200 concurrent calls against a budget for 10 overspend by at most one reservation', async () => {
    const reservation = await reservationOfHi(gw);
    const budget = 10 * reservation;
    const key = await createKey(gw, { budgetCents: budget });
    const openai = client(gw, key.key);
    fake.latencyMs = 50;
    let results: PromiseSettledResult<unknown>[];
    try {
      results = await Promise.allSettled(
        Array.from({ length: 200 }, () => openai.chat.completions.create(hi('chat'))),
      );
    } finally {
      fake.latencyMs = 0;
    }
    let served = results.filter((result) => result.status === 'fulfilled').length;
    for (const result of results) {
      if (result.status === 'rejected') {
        const code = (result.reason as { code?: string }).code;
        assert.ok(code === 'budget_reserved' || code === 'budget_exceeded', String(result.reason));
        assert.equal((result.reason as { status?: number }).status, 429);
      }
    }
    assert.ok(served >= 10, `${served} served: the budget holds at least 10 reservations at once`);
    // One call after another until the budget is spent: each call cost 3 cents (1 prompt + 2 completion tokens).
    let refusal: Awaited<ReturnType<typeof failure>> | null = null;
    while (refusal === null) {
      try {
        await openai.chat.completions.create(hi('chat'));
        served++;
      } catch (error) {
        refusal = await failure(Promise.reject(error));
      }
    }
    assert.equal(refusal.code, 'budget_exceeded');
    assert.equal(refusal.type, 'insufficient_quota');
    await waitUntil(
      async () => (await spendCents(gw.database?.url ?? '', key.id)) === 3 * served,
      'spend written',
    );
    assert.ok(3 * served >= budget, `spent ${3 * served} of a ${budget} budget`);
    assert.ok(3 * served <= budget + reservation, `spent ${3 * served} of a ${budget} budget`);
  });

  it('a burst settles every TPM entry and the budget counter to the actual usage', async () => {
    const key = await createKey(gw, { tpmLimit: 1_000_000, budgetCents: 1_000_000 });
    const openai = client(gw, key.key);
    // Calls that finish together are settled together, several to one cache-store operation.
    fake.latencyMs = 20;
    try {
      await Promise.all(Array.from({ length: 40 }, () => openai.chat.completions.create(hi('chat'))));
    } finally {
      fake.latencyMs = 0;
    }
    const cache = gw.gateway.runtime.cache;
    // Each call used 3 tokens, at 1 cent a token.
    await waitUntil(async () => (await tokensUsed(cache, key.id, 1_000_000)) === 3 * 40, 'TPM settled');
    await waitUntil(
      async () => Number(await cache.get(LIMIT_KEYS.budget(key.id))) === 3 * 40,
      'budget counter settled',
    );
  });

  it('spend_cents equals the sum of the calls’ costs after a burst', async () => {
    const key = await createKey(gw);
    const openai = client(gw, key.key);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        openai.chat.completions.create({
          model: 'chat',
          messages: [{ role: 'user', content: 'word '.repeat(1 + (i % 7)).trim() }],
          ...(i % 2 === 0 ? { max_tokens: 3 } : {}),
        }),
      ),
    );
    const expected = answers.reduce(
      (sum, answer) => sum + (answer.usage?.prompt_tokens ?? 0) + (answer.usage?.completion_tokens ?? 0),
      0,
    );
    await waitUntil(
      async () => (await spendCents(gw.database?.url ?? '', key.id)) === expected,
      'spend written',
    );
    await waitUntil(
      async () => (await recordedCostCents(gw.database?.url ?? '', key.id)).calls === answers.length,
      'records written',
    );
    closeTo((await recordedCostCents(gw.database?.url ?? '', key.id)).cents, expected, 'recorded costs');
  });
});

describe('spend pending at SIGTERM', () => {
  it('is written during shutdown, not lost', async () => {
    const fake = await new OpenAIFake().start();
    const setup = await startTestGateway();
    const database = setup.database;
    assert.ok(database !== undefined);
    const target = new URL(database.url);
    const proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port) });
    try {
      await createDeployment(setup, { publicModel: 'chat', baseUrl: fake.baseUrl, pricing: CENT_A_TOKEN });
      const key = await createKey(setup);
      const viaProxy = new URL(database.url);
      viaProxy.port = String(proxy.port);
      const child = spawnMain(['serve'], {
        ...setup.env,
        DATABASE_URL: viaProxy.toString(),
        LOG_LEVEL: 'info',
      });
      const port = await waitForListening(child);
      const openai = new (await import('openai')).default({
        apiKey: key.key,
        baseURL: `http://127.0.0.1:${port}/v1`,
        maxRetries: 0,
      });
      // The first call loads the key; then the database hangs, so every flush stalls in flight.
      const first = await openai.chat.completions.create(hi('chat'));
      let expected = (first.usage?.prompt_tokens ?? 0) + (first.usage?.completion_tokens ?? 0);
      await waitUntil(
        async () => (await spendCents(database.url, key.id)) === expected,
        'first spend written',
      );
      proxy.stall();
      const burst = await Promise.all(
        Array.from({ length: 20 }, () => openai.chat.completions.create(hi('chat'))),
      );
      expected += burst.reduce(
        (sum, a) => sum + (a.usage?.prompt_tokens ?? 0) + (a.usage?.completion_tokens ?? 0),
        0,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok((await spendCents(database.url, key.id)) < expected, 'spend is pending when SIGTERM arrives');

      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      setTimeout(() => proxy.restore(), 500);
      const [code] = await exited;
      assert.equal(code, 0, child.output());
      closeTo(await spendCents(database.url, key.id), expected, 'spend_cents after shutdown');
      const recorded = await recordedCostCents(database.url, key.id);
      assert.equal(recorded.calls, 21, 'every call recorded');
      closeTo(recorded.cents, expected, 'recorded costs after shutdown');
    } finally {
      proxy.restore();
      await setup.close();
      await proxy.close();
      await fake.close();
    }
  });
});
