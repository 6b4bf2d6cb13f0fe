import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { openaiClient } from '../helpers/openai-client.ts';
import { eventually as eventuallyValue } from '../records/support.ts';
import { AdminClient } from './support.ts';

interface KeyInfo {
  id: string;
  name: string;
  teamId: string | null;
  allowedModels: string[];
  tags: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  budgetCents: number | null;
  budgetPeriod: string | null;
  spendCents: number;
  periodSpendCents: number;
  remainingCents: number | null;
  budgetResetsAt: string | null;
  expiresAt: string | null;
  team: (Record<string, unknown> & { id: string; remainingCents: number | null }) | null;
}

/** One cent per token, so a call's spend is visible in whole cents. */
const CENT_PER_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };

describe('GET /v1/key (self-service key info)', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let admin: AdminClient;

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    admin = new AdminClient(gw);
    const res = await admin.post('/admin/deployments', {
      publicModel: 'alpha',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      apiKey: 'sk-upstream',
      baseUrl: fake.baseUrl,
      pricing: CENT_PER_TOKEN,
    });
    assert.equal(res.status, 201);
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it("answers the calling key's own limits, budget and spend through the openai client, never a secret", async () => {
    const expiresAt = '2999-01-01T00:00:00.000Z';
    const issued = await admin.post('/admin/keys', {
      name: 'search-ci',
      allowedModels: ['alpha'],
      rpmLimit: 600,
      tpmLimit: 100_000,
      budgetCents: 10_000,
      expiresAt,
      tags: ['team:search'],
    });
    const other = await admin.post('/admin/keys', { name: 'someone-else', allowedModels: ['*'] });
    const secret = String(issued.body.key);
    const client = openaiClient(gw, secret);

    const fresh = (await client.get('/key')) as KeyInfo;
    assert.deepEqual(fresh, {
      id: issued.body.id,
      name: 'search-ci',
      teamId: null,
      allowedModels: ['alpha'],
      tags: ['team:search'],
      rpmLimit: 600,
      tpmLimit: 100_000,
      budgetCents: 10_000,
      budgetPeriod: null,
      spendCents: 0,
      periodSpendCents: 0,
      remainingCents: 10_000,
      budgetResetsAt: null,
      expiresAt,
      team: null,
    });

    await client.chat.completions.create({ model: 'alpha', messages: [{ role: 'user', content: 'hi' }] });
    const spent = await eventuallyValue(async () => {
      const info = (await client.get('/key')) as KeyInfo;
      return info.spendCents > 0 ? info : undefined;
    });
    assert.equal(spent.remainingCents, 10_000 - spent.spendCents);
    assert.equal(spent.periodSpendCents, spent.spendCents, 'a lifetime budget: the period is the lifetime');

    const raw = await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${secret}` } });
    const text = await raw.text();
    assert.equal(raw.status, 200);
    for (const forbidden of [secret, String(other.body.key), String(other.body.id), 'someone-else']) {
      assert.ok(!text.includes(forbidden), 'neither the secret nor another key');
    }
    assert.ok(!/key_hash|keyHash|"key"/.test(text), 'no secret field of any kind');
  });

  it('answers null remainingCents for a key without a budget, and x-api-key works as on every /v1 route', async () => {
    const issued = await admin.post('/admin/keys', { allowedModels: ['*'] });
    const res = await fetch(`${gw.url}/v1/key`, { headers: { 'x-api-key': String(issued.body.key) } });
    const info = (await res.json()) as KeyInfo;
    assert.equal(info.id, issued.body.id);
    assert.equal(info.budgetCents, null);
    assert.equal(info.remainingCents, null);
    assert.deepEqual(info.tags, []);
  });

  it("shows a team key's scope in force and its team's spent budget, not allowedModels * and no budget", async () => {
    const team = await admin.post('/admin/teams', {
      name: 'search',
      allowedModels: ['alpha'],
      rpmLimit: 60,
      budgetCents: 1,
      budgetPeriod: 'monthly',
    });
    assert.equal(team.status, 201);
    const issued = await admin.post('/admin/keys', { allowedModels: ['*'], teamId: team.body.id });
    const client = openaiClient(gw, String(issued.body.key));
    // One call spends the team's 1-cent budget (a cent a token); the next is refused by the team.
    await client.chat.completions.create({ model: 'alpha', messages: [{ role: 'user', content: 'hi' }] });
    const info = await eventuallyValue(async () => {
      const read = (await client.get('/key')) as KeyInfo;
      return read.team?.remainingCents === 0 ? read : undefined;
    });
    assert.deepEqual(info.allowedModels, ['alpha'], "the intersection of the key's * and the team's scope");
    assert.equal(info.budgetCents, null, 'the key has no budget of its own');
    assert.ok(info.team !== null, 'the team is shown');
    const { periodSpendCents, budgetResetsAt, spendCents, ...limits } = info.team;
    assert.deepEqual(limits, {
      id: team.body.id,
      name: 'search',
      rpmLimit: 60,
      tpmLimit: null,
      budgetCents: 1,
      budgetPeriod: 'monthly',
      remainingCents: 0,
    });
    assert.ok(Number(periodSpendCents) >= 1, `the team spent ${periodSpendCents}`);
    assert.equal(spendCents, periodSpendCents);
    assert.match(String(budgetResetsAt), /^\d{4}-\d{2}-01T00:00:00\.000Z$/);
    await assert.rejects(
      client.chat.completions.create({ model: 'alpha', messages: [{ role: 'user', content: 'hi' }] }),
      (error: { code?: string }) => error.code === 'budget_exceeded',
    );
  });

  it('answers 401 in the OpenAI shape without a key, with an unknown one and after a delete', async () => {
    const none = await fetch(`${gw.url}/v1/key`);
    assert.equal(none.status, 401);
    const body = (await none.json()) as { error: { type: string; code: string } };
    assert.equal(body.error.type, 'authentication_error');
    assert.equal(body.error.code, 'invalid_api_key');

    const unknown = openaiClient(gw, 'sk-sy-not-a-key');
    await assert.rejects(unknown.get('/key'), (error: { status?: number }) => error.status === 401);

    const issued = await admin.post('/admin/keys', { allowedModels: ['*'] });
    const asKey = { headers: { authorization: `Bearer ${issued.body.key}` } };
    assert.equal((await fetch(`${gw.url}/v1/key`, asKey)).status, 200);
    await admin.delete(`/admin/keys/${issued.body.id}`);
    assert.equal((await fetch(`${gw.url}/v1/key`, asKey)).status, 401);
  });

  it('answers the master key 400: the endpoint describes a virtual key', async () => {
    const res = await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${gw.masterKey}` } });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { type: string; code: string; message: string } };
    assert.equal(body.error.code, 'invalid_request');
    assert.match(body.error.message, /virtual key/);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.ok('/v1/key' in doc.paths);
    assert.ok('/admin/keys/{id}/rotate' in doc.paths);
  });
});
