import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { BUDGET_THRESHOLD_CHANNEL, type BudgetThresholdEvent } from '../../src/limits/index.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Answer, admin } from '../records/support.ts';
import { client, createDeployment, failure, hi, waitUntil } from './support.ts';

/**
 * Issue 24 item 1 (DESIGN.md section 5, Governance): calendar budget periods in UTC, read-only
 * period spend and reset time, reset-spend, and the refusal of a spent period naming its reset
 * (issue 30 finding 2: in the message and `x-switchyard-budget-resets-at`, never as Retry-After).
 * The gateway's clock is injected; the budget rolls over at the boundary with no job.
 */

/** 1 cent a token: a `hi` call (1 prompt token, 2 completion tokens) costs 3 cents. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };
const CALL_CENTS = 3;

interface KeyView {
  id: string;
  key: string;
  budgetPeriod: string | null;
  spendCents: number;
  periodSpendCents: number;
  budgetResetsAt: string | null;
}

async function issueKey(gw: TestGateway, fields: Record<string, unknown>): Promise<KeyView> {
  const res = await admin<KeyView>(gw, 'POST', '/admin/keys', { allowedModels: ['*'], ...fields });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

async function keyInfo(
  gw: TestGateway,
  secret: string,
): Promise<KeyView & { remainingCents: number | null }> {
  const res = await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(res.status, 200);
  return (await res.json()) as KeyView & { remainingCents: number | null };
}

/** Spends whole calls until the budget refuses; answers the refusal. */
async function spendUntilRefused(gw: TestGateway, secret: string) {
  const openai = client(gw, secret);
  for (let call = 0; call < 50; call++) {
    try {
      await openai.chat.completions.create(hi('chat'));
    } catch (error) {
      return failure(Promise.reject(error));
    }
  }
  assert.fail('the budget never refused');
}

describe('budget periods (Redis and Postgres, injected clock)', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let nowMs = Date.UTC(2031, 0, 15, 23, 59, 0);
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ now: () => nowMs });
    await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl, pricing: CENT_A_TOKEN });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('a spent daily budget refuses at once, naming its reset at midnight UTC, then admits from the boundary on', async () => {
    nowMs = Date.UTC(2031, 0, 15, 23, 59, 0);
    const key = await issueKey(gw, { budgetCents: 5, budgetPeriod: 'daily' });
    assert.equal(key.budgetPeriod, 'daily');
    assert.equal(key.budgetResetsAt, '2031-01-16T00:00:00.000Z');
    const refusal = await spendUntilRefused(gw, key.key);
    assert.equal(refusal.status, 429);
    assert.equal(refusal.code, 'budget_exceeded');
    assert.equal(refusal.headers?.get('retry-after'), null, 'no SDK sits out a wait until the reset');
    assert.equal(refusal.headers?.get('x-should-retry'), 'false');
    assert.equal(refusal.headers?.get('x-switchyard-budget-resets-at'), '2031-01-16T00:00:00.000Z');
    assert.match(refusal.message, /until 2031-01-16T00:00:00\.000Z/);
    const spent = await keyInfo(gw, key.key);
    assert.equal(
      spent.periodSpendCents,
      2 * CALL_CENTS,
      'two calls fit a 5-cent budget (the second ends over)',
    );
    assert.equal(spent.remainingCents, 0);
    assert.equal(spent.budgetResetsAt, '2031-01-16T00:00:00.000Z');

    nowMs = Date.UTC(2031, 0, 15, 23, 59, 59, 999);
    await failure(client(gw, key.key).chat.completions.create(hi('chat')));
    nowMs = Date.UTC(2031, 0, 16);
    await client(gw, key.key).chat.completions.create(hi('chat'));
    const next = await keyInfo(gw, key.key);
    assert.equal(next.periodSpendCents, CALL_CENTS, 'the new day counts from 0');
    assert.equal(next.spendCents, 3 * CALL_CENTS, 'spendCents stays cumulative');
    assert.equal(next.budgetResetsAt, '2031-01-17T00:00:00.000Z');
    await waitUntil(async () => {
      const row = await admin<KeyView>(gw, 'GET', `/admin/keys/${key.id}`);
      return row.body.spendCents === 3 * CALL_CENTS && row.body.periodSpendCents === CALL_CENTS;
    }, 'the period spend written to the database');
  });

  it('a spent monthly budget makes the official SDKs fail at once with the reset, not wait for days', async () => {
    nowMs = Date.UTC(2031, 2, 5, 12);
    const key = await issueKey(gw, { budgetCents: 5, budgetPeriod: 'monthly' });
    await spendUntilRefused(gw, key.key);
    const requests: string[] = [];
    const counting: typeof fetch = (input, init) => {
      requests.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    // The SDKs' default retries: they would sit out a Retry-After, or back off and retry a 429.
    const openai = new OpenAI({ apiKey: key.key, baseURL: `${gw.url}/v1`, fetch: counting });
    const openaiError = await failure(openai.chat.completions.create(hi('chat')));
    assert.equal(openaiError.code, 'budget_exceeded');
    assert.match(openaiError.message, /until 2031-04-01T00:00:00\.000Z/);
    const anthropic = new Anthropic({ apiKey: key.key, baseURL: gw.url, fetch: counting });
    const anthropicError = await anthropic.messages
      .create({ model: 'chat', max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] })
      .then(() => assert.fail('the spent budget admitted a Messages call'))
      .catch((error: unknown) => error);
    assert.ok(anthropicError instanceof Anthropic.RateLimitError, String(anthropicError));
    assert.match(anthropicError.message, /until 2031-04-01T00:00:00\.000Z/);
    assert.equal(anthropicError.headers?.get('x-switchyard-budget-resets-at'), '2031-04-01T00:00:00.000Z');
    assert.equal(requests.length, 2, `one request per SDK, no retry: ${requests.join(', ')}`);
  });

  it('weekly and monthly periods reset on Monday and on the first of the month, UTC', async () => {
    nowMs = Date.UTC(2031, 0, 15, 12); // a Wednesday
    const weekly = await issueKey(gw, { budgetCents: 100, budgetPeriod: 'weekly' });
    assert.equal(weekly.budgetResetsAt, '2031-01-20T00:00:00.000Z');
    const monthly = await issueKey(gw, { budgetCents: 100, budgetPeriod: 'monthly' });
    assert.equal(monthly.budgetResetsAt, '2031-02-01T00:00:00.000Z');
    const lifetime = await issueKey(gw, { budgetCents: 100 });
    assert.equal(lifetime.budgetResetsAt, null);
  });

  it('reset-spend starts a new period now, on a period budget and on a lifetime one', async () => {
    nowMs = Date.UTC(2031, 0, 20, 10);
    for (const budgetPeriod of ['daily', null]) {
      const key = await issueKey(gw, { budgetCents: 5, budgetPeriod });
      const refusal = await spendUntilRefused(gw, key.key);
      assert.equal(refusal.code, 'budget_exceeded');
      if (budgetPeriod === null) {
        assert.equal(
          refusal.headers?.get('x-should-retry'),
          'false',
          'a lifetime budget: retrying cannot help',
        );
        assert.equal(refusal.headers?.get('retry-after'), null);
      }
      nowMs += 1000;
      const reset: Answer<KeyView> = await admin<KeyView>(gw, 'POST', `/admin/keys/${key.id}/reset-spend`);
      assert.equal(reset.status, 200, reset.text);
      assert.equal(reset.body.periodSpendCents, 0);
      await client(gw, key.key).chat.completions.create(hi('chat'));
      const info = await keyInfo(gw, key.key);
      assert.equal(info.periodSpendCents, CALL_CENTS, `${budgetPeriod}: the new period holds the one call`);
      assert.equal(info.spendCents, 3 * CALL_CENTS, `${budgetPeriod}: cumulative`);
    }
    const missing = await admin(gw, 'POST', '/admin/keys/key_nope/reset-spend');
    assert.equal(missing.status, 404);
  });

  it('publishes a budget crossing 80% and 100% once per period and threshold, after settlement', async () => {
    nowMs = Date.UTC(2031, 1, 3, 8);
    const events: BudgetThresholdEvent[] = [];
    const listener = (message: unknown) => events.push(message as BudgetThresholdEvent);
    diagnosticsChannel.subscribe(BUDGET_THRESHOLD_CHANNEL, listener);
    try {
      const key = await issueKey(gw, { budgetCents: 10, budgetPeriod: 'daily' });
      const openai = client(gw, key.key);
      await openai.chat.completions.create(hi('chat')); // 3 of 10
      await openai.chat.completions.create(hi('chat')); // 6
      await openai.chat.completions.create(hi('chat')); // 9: past 80%
      await waitUntil(async () => events.length === 1, 'the 80% event');
      await openai.chat.completions.create(hi('chat')); // 12: past 100%
      await waitUntil(async () => events.length === 2, 'the 100% event');
      await failure(openai.chat.completions.create(hi('chat')));
      assert.deepEqual(events, [
        {
          scope: 'key',
          id: key.id,
          percent: 80,
          period: 'daily',
          periodStart: '2031-02-03T00:00:00.000Z',
          spendCents: 9,
          budgetCents: 10,
        },
        {
          scope: 'key',
          id: key.id,
          percent: 100,
          period: 'daily',
          periodStart: '2031-02-03T00:00:00.000Z',
          spendCents: 12,
          budgetCents: 10,
        },
      ]);
      nowMs = Date.UTC(2031, 1, 4);
      for (let call = 0; call < 3; call++) await openai.chat.completions.create(hi('chat'));
      await waitUntil(async () => events.length === 3, 'the next day has its own thresholds');
      assert.equal(events[2]?.periodStart, '2031-02-04T00:00:00.000Z');
      assert.equal(events[2]?.percent, 80);
    } finally {
      diagnosticsChannel.unsubscribe(BUDGET_THRESHOLD_CHANNEL, listener);
    }
  });

  it('refuses an unknown period, a negative or non-finite budget with 400 naming the field, writing nothing', async () => {
    const before = await admin<{ data: unknown[] }>(gw, 'GET', '/admin/keys?limit=100');
    const cases: [string, string][] = [
      ['{"allowedModels":["*"],"budgetPeriod":"yearly"}', 'budgetPeriod'],
      ['{"allowedModels":["*"],"budgetCents":-1}', 'budgetCents'],
      ['{"allowedModels":["*"],"budgetCents":1e999}', 'budgetCents'],
      ['{"allowedModels":["*"],"budgetCents":"10"}', 'budgetCents'],
      ['{"allowedModels":["*"],"rpmLimit":-5}', 'rpmLimit'],
      ['{"allowedModels":["*"],"teamId":"team_nope"}', 'teamId'],
    ];
    for (const [body, param] of cases) {
      const res = await fetch(`${gw.url}/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
        body,
      });
      const answer = (await res.json()) as { error: { code: string; param: string } };
      assert.equal(res.status, 400, body);
      assert.equal(answer.error.param, param, body);
    }
    const unchanged = await admin<{ data: unknown[] }>(gw, 'GET', '/admin/keys?limit=100');
    assert.equal(unchanged.body.data.length, before.body.data.length, 'no key was created');
    const key = await issueKey(gw, { budgetCents: 5 });
    const patch = await admin(gw, 'PATCH', `/admin/keys/${key.id}`, { budgetPeriod: 'hourly' });
    assert.equal(patch.status, 400);
    const team = await admin(gw, 'PATCH', `/admin/keys/${key.id}`, { teamId: 'team_nope', name: 'renamed' });
    assert.equal(team.status, 400);
    assert.equal((team.body as { error: { param: string } }).error.param, 'teamId');
    const read = await admin<{ name: string; teamId: string | null }>(gw, 'GET', `/admin/keys/${key.id}`);
    assert.deepEqual([read.body.name, read.body.teamId], ['', null], 'nothing partially written');
  });
});
