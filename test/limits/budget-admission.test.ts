import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { client, createDeployment, createKey, failure, spendCents, waitUntil } from './support.ts';

/**
 * Issue 19 item 2, DESIGN.md section 5 (Budget admission and exhaustion): a call is admitted while
 * budget - settled spend - the worst cases in flight > 0 and reserves its own worst case (input
 * estimate + max_tokens, or the catalog's maximum output); refusals are budget_reserved (held by
 * calls in flight) or budget_exceeded (spent).
 */

/** 1 cent a token, so a call's cost in cents is its token count. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };
/** gpt-4o-mini's maximum output in the catalog: the worst case of a call without max_tokens. */
const CATALOG_MAX_OUTPUT = 16_384;

/** Common English words, one o200k token each: the gateway's estimate matches the fake's count. */
const VOCABULARY = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', 'ran', 'far', 'away'];

/** A prompt of `count` words; the fake answers `echo: <prompt>`, so about as many output tokens. */
function words(count: number): string {
  return Array.from({ length: count }, (_, i) => VOCABULARY[i % VOCABULARY.length]).join(' ');
}

/** A raw call, for the headers and the body in either shape. */
async function post(gw: TestGateway, key: string, path: string, body: unknown) {
  const response = await fetch(`${gw.url}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { response, body: (await response.json()) as Record<string, Record<string, unknown>> };
}

function describeBudgets(storage: 'postgres' | 'embedded'): void {
  describe(`budget admission (${storage === 'postgres' ? 'Redis and Postgres' : 'embedded default'})`, () => {
    let fake: OpenAIFake;
    let gw: TestGateway;
    before(async () => {
      fake = await new OpenAIFake().start();
      gw = await startTestGateway(storage === 'postgres' ? {} : { storage: 'embedded', redis: false });
      await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl, pricing: CENT_A_TOKEN });
    });
    after(async () => {
      await gw?.close();
      await fake?.close();
    });

    it('serves the first call of a fresh key with a 50-cent budget, whose worst case is far above it', async () => {
      const key = await createKey(gw, { budgetCents: 50 });
      // Worst case: the input plus 16,384 tokens of output at a cent a token, 330 times the budget.
      const answer = await client(gw, key.key).chat.completions.create({
        model: 'chat',
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(answer.choices[0]?.message.content, 'echo: hi');
    });

    it('answers budget_reserved while calls in flight hold the budget, budget_exceeded once it is spent, in both shapes', async () => {
      const key = await createKey(gw, { budgetCents: 50 });
      const prompt = words(40);
      fake.latencyMs = 1_500;
      const before = fake.requests.length;
      let first: Promise<unknown> = Promise.resolve();
      try {
        first = client(gw, key.key).chat.completions.create({
          model: 'chat',
          messages: [{ role: 'user', content: prompt }],
        });
        // Awaited below; a refusal of this call must fail the test there, not crash the process first.
        first.catch(() => {});
        await waitUntil(async () => fake.requests.length > before, 'first call upstream');
        const held = await post(gw, key.key, '/chat/completions', {
          model: 'chat',
          messages: [{ role: 'user', content: 'hi' }],
        });
        assert.equal(held.response.status, 429);
        assert.equal(held.body.error.code, 'budget_reserved');
        assert.equal(held.body.error.type, 'rate_limit_error');
        assert.equal(held.response.headers.get('retry-after'), '1');
        assert.equal(held.response.headers.get('x-should-retry'), null);
        const message = String(held.body.error.message);
        assert.match(message, /50 cents left of 50 cents/, message);
        assert.match(message, /reserved/);
        assert.match(message, /could cost up to \d+ cents/);
        assert.match(message, /max_tokens/);

        const heldMessages = await post(gw, key.key, '/messages', {
          model: 'chat',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'hi' }],
        });
        assert.equal(heldMessages.response.status, 429);
        assert.equal(heldMessages.body.error.type, 'rate_limit_error');
        assert.match(String(heldMessages.body.error.message), /could cost up to \d+(\.\d+)? cents/);
        assert.equal(heldMessages.response.headers.get('retry-after'), '1');
      } finally {
        fake.latencyMs = 0;
      }
      await first;
      // About 80 tokens at a cent each: the 50-cent budget is spent, one call's worst case at most over.
      const call = client(gw, key.key).chat.completions.create({
        model: 'chat',
        messages: [{ role: 'user', content: 'hi' }],
      });
      const refused = await failure(call);
      assert.equal(refused.status, 429);
      assert.equal(refused.code, 'budget_exceeded');
      assert.equal(refused.type, 'insufficient_quota');
      assert.equal(refused.headers?.get('x-should-retry'), 'false');
      assert.equal(refused.headers?.get('retry-after'), null);
      assert.match(refused.message, /spent of 50 cents, nothing left; this request could cost up to/);

      const spentMessages = await post(gw, key.key, '/messages', {
        model: 'chat',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(spentMessages.response.status, 429);
      assert.deepEqual(Object.keys(spentMessages.body), ['type', 'error']);
      assert.equal(spentMessages.body.error.type, 'rate_limit_error');
      assert.equal(spentMessages.response.headers.get('x-should-retry'), 'false');
      assert.equal(spentMessages.response.headers.get('retry-after'), null);
    });

    it('ends at most one worst case over the budget when rounds of 10 concurrent calls without max_tokens spend it', async () => {
      const prompt = words(5_000);
      const probe = await client(gw, (await createKey(gw)).key).chat.completions.create({
        model: 'chat',
        messages: [{ role: 'user', content: prompt }],
      });
      const callCents = (probe.usage?.prompt_tokens ?? 0) + (probe.usage?.completion_tokens ?? 0);
      // The worst case prices the estimated input (at least the fake's count) plus the maximum output.
      const worstCase = (probe.usage?.prompt_tokens ?? 0) + 64 + CATALOG_MAX_OUTPUT;
      const budget = 7 * callCents;
      const key = await createKey(gw, { budgetCents: budget });
      const openai = client(gw, key.key);
      fake.latencyMs = 100;
      let served = 0;
      try {
        for (let round = 0; round < 20; round++) {
          const results = await Promise.allSettled(
            Array.from({ length: 10 }, () =>
              openai.chat.completions.create({
                model: 'chat',
                messages: [{ role: 'user', content: prompt }],
              }),
            ),
          );
          const codes = results.map((r) =>
            r.status === 'fulfilled' ? 'ok' : (r.reason as { code?: string }).code,
          );
          served += codes.filter((code) => code === 'ok').length;
          for (const code of codes)
            assert.ok(['ok', 'budget_reserved', 'budget_exceeded'].includes(code ?? ''), String(code));
          if (codes.every((code) => code === 'budget_exceeded')) break;
        }
      } finally {
        fake.latencyMs = 0;
      }
      assert.ok(served >= 7, `${served} served`);
      const total = served * callCents;
      assert.ok(total >= budget, 'the budget was spent');
      assert.ok(
        total <= budget + worstCase,
        `spent ${total} of ${budget}: more than one worst case (${worstCase}) over`,
      );
      if (storage === 'postgres') {
        await waitUntil(
          async () => (await spendCents(gw.database?.url ?? '', key.id)) === total,
          'spend written',
        );
      }
    });
  });
}

describeBudgets('postgres');
describeBudgets('embedded');
