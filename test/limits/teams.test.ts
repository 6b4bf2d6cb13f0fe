import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { admin, eventually } from '../records/support.ts';
import { client, createDeployment, failure, hi, waitUntil } from './support.ts';

/**
 * Issue 24 item 2 (DESIGN.md section 5, Governance): teams over keys. A key's scope is the
 * intersection of its own and its team's; a call is admitted only when the key and its team both
 * admit it, in one atomic step, so a team budget shared by several keys ends at most one call's
 * worst case over, as a key's does.
 */

/** 1 cent a token: a `hi` call (1 prompt token, 2 completion tokens) costs 3 cents. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };

interface Team {
  id: string;
  name: string;
  allowedModels: string[];
  budgetCents: number | null;
  budgetPeriod: string | null;
  spendCents: number;
  periodSpendCents: number;
  budgetResetsAt: string | null;
}

async function createTeam(gw: TestGateway, fields: Record<string, unknown>): Promise<Team> {
  const res = await admin<Team>(gw, 'POST', '/admin/teams', { name: 'team', ...fields });
  assert.equal(res.status, 201, res.text);
  assert.match(res.body.id, /^team_/);
  return res.body;
}

async function issueKey(
  gw: TestGateway,
  fields: Record<string, unknown>,
): Promise<{ id: string; key: string }> {
  const res = await admin<{ id: string; key: string; teamId: string | null }>(gw, 'POST', '/admin/keys', {
    allowedModels: ['*'],
    ...fields,
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.teamId, fields.teamId ?? null);
  return res.body;
}

describe('teams (Redis and Postgres)', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl, pricing: CENT_A_TOKEN });
    await createDeployment(gw, { publicModel: 'other', baseUrl: fake.baseUrl, pricing: CENT_A_TOKEN });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('creates, reads, lists, changes and deletes a team, with read-only spends', async () => {
    const team = await createTeam(gw, { budgetCents: 100, budgetPeriod: 'monthly', metadata: { cc: '42' } });
    assert.deepEqual(team.allowedModels, ['*']);
    assert.equal(team.periodSpendCents, 0);
    assert.ok(team.budgetResetsAt !== null);
    const read = await admin<Team>(gw, 'GET', `/admin/teams/${team.id}`);
    assert.equal(read.body.budgetPeriod, 'monthly');
    const list = await admin<{ data: Team[] }>(gw, 'GET', '/admin/teams?limit=100');
    assert.ok(list.body.data.some((row) => row.id === team.id));
    const patched = await admin<Team>(gw, 'PATCH', `/admin/teams/${team.id}`, {
      budgetPeriod: null,
      rpmLimit: 5,
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.budgetPeriod, null);
    assert.equal(patched.body.budgetResetsAt, null);
    const readOnly = await admin(gw, 'PATCH', `/admin/teams/${team.id}`, { spendCents: 0 });
    assert.equal(readOnly.status, 400);
    assert.equal((await admin(gw, 'DELETE', `/admin/teams/${team.id}`)).status, 200);
    assert.equal((await admin(gw, 'GET', `/admin/teams/${team.id}`)).status, 404);
  });

  it("scopes a key to the intersection of its models and its team's", async () => {
    const team = await createTeam(gw, { allowedModels: ['chat'] });
    const key = await issueKey(gw, { allowedModels: ['chat', 'other'], teamId: team.id });
    await client(gw, key.key).chat.completions.create(hi('chat'));
    const refused = await failure(client(gw, key.key).chat.completions.create(hi('other')));
    assert.equal(refused.status, 403);
    assert.equal(refused.code, 'model_not_allowed');
    const models = await client(gw, key.key).models.list();
    assert.deepEqual(
      models.data.map((model) => model.id),
      ['chat'],
    );
    const info = await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${key.key}` } });
    assert.equal(((await info.json()) as { teamId: string }).teamId, team.id);
  });

  it('refuses a call the team refuses even when its key would admit it (team RPM)', async () => {
    const team = await createTeam(gw, { rpmLimit: 2 });
    const a = await issueKey(gw, { teamId: team.id, rpmLimit: 100 });
    const b = await issueKey(gw, { teamId: team.id });
    await client(gw, a.key).chat.completions.create(hi('chat'));
    await client(gw, b.key).chat.completions.create(hi('chat'));
    const refused = await failure(client(gw, a.key).chat.completions.create(hi('chat')));
    assert.equal(refused.status, 429);
    assert.equal(refused.code, 'rate_limit_exceeded');
    assert.ok(Number(refused.headers?.get('retry-after')) >= 1);
  });

  it("answers a team's token window in the rate-limit headers of a key without its own, and settles it", async () => {
    const team = await createTeam(gw, { tpmLimit: 50_000 });
    const key = await issueKey(gw, { teamId: team.id });
    const openai = client(gw, key.key);
    const first = await openai.chat.completions.create(hi('chat', 1000)).withResponse();
    assert.equal(first.response.headers.get('x-ratelimit-limit-tokens'), '50000');
    const reserved = 50_000 - Number(first.response.headers.get('x-ratelimit-remaining-tokens'));
    assert.ok(reserved > 1000, `the call reserved its max_tokens: ${reserved}`);
    await waitUntil(async () => {
      const next = await openai.chat.completions.create(hi('chat', 1)).withResponse();
      const used = 50_000 - Number(next.response.headers.get('x-ratelimit-remaining-tokens'));
      // The first call settled to its 3 tokens: what is used is that and this call's reservation.
      return used < reserved;
    }, "the team's token entry settled to the actual tokens");
  });

  it('a team budget shared by two keys under 100 concurrent calls ends at most one call over', async () => {
    // The worst case of a `hi` call: its input estimate and max_tokens 2, at a cent a token.
    const probe = await issueKey(gw, { tpmLimit: 1_000_000 });
    const { response } = await client(gw, probe.key).chat.completions.create(hi('chat')).withResponse();
    const worstCase = 1_000_000 - Number(response.headers.get('x-ratelimit-remaining-tokens'));
    const budget = 10 * worstCase;
    const team = await createTeam(gw, { budgetCents: budget, budgetPeriod: 'daily' });
    const keys = [await issueKey(gw, { teamId: team.id }), await issueKey(gw, { teamId: team.id })];
    fake.latencyMs = 50;
    let served = 0;
    try {
      for (let round = 0; round < 20; round++) {
        const results = await Promise.allSettled(
          Array.from({ length: 100 }, (_, i) =>
            client(gw, keys[i % 2].key).chat.completions.create(hi('chat')),
          ),
        );
        for (const result of results) {
          if (result.status === 'fulfilled') served++;
          else {
            const code = (result.reason as { code?: string }).code;
            assert.ok(code === 'budget_reserved' || code === 'budget_exceeded', String(result.reason));
          }
        }
        if (
          results.every(
            (result) =>
              result.status === 'rejected' && (result.reason as { code?: string }).code === 'budget_exceeded',
          )
        )
          break;
      }
    } finally {
      fake.latencyMs = 0;
    }
    const refusal = await failure(client(gw, keys[0].key).chat.completions.create(hi('chat')));
    assert.equal(refusal.code, 'budget_exceeded');
    assert.match(refusal.message, /team's budget/);
    assert.equal(refusal.headers?.get('retry-after'), null, 'nobody should wait until midnight');
    assert.equal(refusal.headers?.get('x-should-retry'), 'false');
    assert.match(refusal.headers?.get('x-switchyard-budget-resets-at') ?? '', /T00:00:00\.000Z$/);
    const spent = served * 3;
    assert.ok(spent >= budget, `spent ${spent} of ${budget}`);
    assert.ok(
      spent <= budget + worstCase,
      `spent ${spent} of ${budget}: more than one worst case (${worstCase}) over`,
    );
    await waitUntil(async () => {
      const row = await admin<Team>(gw, 'GET', `/admin/teams/${team.id}`);
      return row.body.spendCents === spent && row.body.periodSpendCents === spent;
    }, 'the team spend written, the sum of its keys');
  });

  it('refuses to delete a team with keys (409) unless cascade=disable, which disables them', async () => {
    const team = await createTeam(gw, {});
    const key = await issueKey(gw, { teamId: team.id });
    const refused = await admin<{ error: { code: string } }>(gw, 'DELETE', `/admin/teams/${team.id}`);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'team_has_keys');
    await client(gw, key.key).chat.completions.create(hi('chat'));
    const bad = await admin(gw, 'DELETE', `/admin/teams/${team.id}?cascade=delete`);
    assert.equal(bad.status, 400);
    const deleted = await admin(gw, 'DELETE', `/admin/teams/${team.id}?cascade=disable`);
    assert.equal(deleted.status, 200, deleted.text);
    const row = await admin<{ enabled: boolean; teamId: string | null }>(gw, 'GET', `/admin/keys/${key.id}`);
    assert.deepEqual([row.body.enabled, row.body.teamId], [false, null]);
    const after = await failure(client(gw, key.key).chat.completions.create(hi('chat')));
    assert.equal(after.status, 401);
  });

  it('refuses bad team input with 400 naming the field, writing nothing', async () => {
    const cases: [string, string][] = [
      ['{"rpmLimit":-1}', 'rpmLimit'],
      ['{"tpmLimit":0}', 'tpmLimit'],
      ['{"budgetCents":1e999}', 'budgetCents'],
      ['{"budgetCents":-3}', 'budgetCents'],
      ['{"budgetPeriod":"yearly"}', 'budgetPeriod'],
      ['{"allowedModels":"chat"}', 'allowedModels'],
    ];
    const before = await admin<{ data: unknown[] }>(gw, 'GET', '/admin/teams?limit=100');
    for (const [body, param] of cases) {
      const res = await fetch(`${gw.url}/admin/teams`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
        body,
      });
      const answer = (await res.json()) as { error: { param: string } };
      assert.equal(res.status, 400, body);
      assert.equal(answer.error.param, param, body);
    }
    const after = await admin<{ data: unknown[] }>(gw, 'GET', '/admin/teams?limit=100');
    assert.equal(after.body.data.length, before.body.data.length);
  });

  it('groups usage by team', async () => {
    const team = await createTeam(gw, {});
    const key = await issueKey(gw, { teamId: team.id });
    const since = new Date(Date.now() - 1000).toISOString();
    const ids = [`team-${randomUUID()}`, `team-${randomUUID()}`];
    for (const requestId of ids) {
      await client(gw, key.key).chat.completions.create(hi('chat'), {
        headers: { 'x-request-id': requestId },
      });
    }
    await client(gw, gw.masterKey).chat.completions.create(hi('chat'));
    const usage = await eventually(async () => {
      const res = await admin<{ data: { group: string | null; requests: number; costCents: number }[] }>(
        gw,
        'GET',
        `/admin/usage?groupBy=team&since=${encodeURIComponent(since)}`,
      );
      assert.equal(res.status, 200, res.text);
      // The team's calls and the master key's call flush separately: wait for both.
      const row = res.body.data.find((entry) => entry.group === team.id);
      const noTeam = res.body.data.find((entry) => entry.group === null);
      return row?.requests === 2 && (noTeam?.requests ?? 0) >= 1 ? res.body.data : undefined;
    });
    assert.equal(usage.find((entry) => entry.group === team.id)?.costCents, 6);
    assert.ok(
      (usage.find((entry) => entry.group === null)?.requests ?? 0) >= 1,
      'the master key has no team',
    );
  });
});
