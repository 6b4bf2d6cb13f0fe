import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { UsageGroupRow } from '../../src/records/queries/usage-query.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import { admin, chat, connect, createDeployment, createKey, eventually } from './support.ts';

interface Attempt {
  deploymentId: string;
  outcome: string;
  errorCode: string | null;
  errorDetail: unknown;
}
interface Operation {
  id: string;
  requestId: string;
  status: string;
  keyId: string | null;
  publicModel: string;
  deploymentId: string | null;
  errorCode: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  attempts: Attempt[];
}
interface Page {
  data: Operation[];
  nextCursor: string | null;
}
interface UsageReport {
  groupBy: string;
  data: UsageGroupRow[];
}

const PROVIDER_WORDING = 'billing account acct-93 suspended by provider';

describe('GET /admin/logs and /admin/usage (variant B)', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let sql: TestSql;
  let alpha: string;
  let beta: string;
  let keyA: { id: string; key: string };
  let keyB: { id: string; key: string };
  const calls: { requestId: string; key: string; model: string; ok: boolean }[] = [];
  const logs = (query: string) => admin<Page>(gw, 'GET', `/admin/logs${query}`);

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    sql = connect(gw);
    alpha = await createDeployment(gw, { publicModel: 'alpha', baseUrl: fake.baseUrl });
    beta = await createDeployment(gw, { publicModel: 'beta', baseUrl: fake.baseUrl });
    keyA = await createKey(gw);
    keyB = await createKey(gw);
    const plan = [
      { key: keyA, model: 'alpha', ok: true },
      { key: keyA, model: 'alpha', ok: true },
      { key: keyA, model: 'beta', ok: true },
      { key: keyB, model: 'beta', ok: true },
      { key: keyB, model: 'alpha', ok: false },
    ];
    for (const step of plan) {
      const requestId = `logs-${randomUUID()}`;
      if (!step.ok)
        fake.failNext(1, {
          status: 400,
          body: { error: { message: PROVIDER_WORDING, type: 'invalid_request_error' } },
        });
      const res = await chat(gw, { token: step.key.key, model: step.model, requestId });
      assert.equal(res.status === 200, step.ok, res.text);
      if (!step.ok) assert.ok(!res.text.includes('acct-93'), 'provider wording stays out of /v1');
      calls.push({ requestId, key: step.key.id, model: step.model, ok: step.ok });
    }
    await eventually(async () => {
      const [row] = await sql<{
        n: number;
      }>`select count(*)::int as n from gateway_operations where status <> 'in_progress'`;
      return row.n === plan.length ? true : undefined;
    });
  });
  after(async () => {
    await sql.end();
    await gw.close();
    await fake.close();
  });

  it('finds a call by request id, with its attempts', async () => {
    const res = await logs(`?requestId=${calls[0].requestId}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.length, 1);
    const [op] = res.body.data;
    assert.equal(op.requestId, calls[0].requestId);
    assert.equal(op.status, 'success');
    assert.equal(op.keyId, keyA.id);
    assert.equal(op.deploymentId, alpha);
    assert.equal(op.attempts.length, 1);
    assert.equal(op.attempts[0].outcome, 'success');
  });

  it("shows the provider's own error detail for a failed attempt", async () => {
    const failed = calls.find((call) => !call.ok)!;
    const res = await logs(`?requestId=${failed.requestId}`);
    const [op] = res.body.data;
    assert.equal(op.status, 'failure');
    assert.equal(op.attempts[0].outcome, 'failure');
    assert.match(JSON.stringify(op.attempts[0].errorDetail), /acct-93/);
    assert.equal(op.errorCode, op.attempts[0].errorCode);
  });

  it('filters by key, model, deployment, status and code', async () => {
    assert.equal((await logs(`?keyId=${keyA.id}`)).body.data.length, 3);
    assert.equal((await logs('?publicModel=beta')).body.data.length, 2);
    const byDeployment = await logs(`?deploymentId=${beta}`);
    assert.deepEqual(new Set(byDeployment.body.data.map((op) => op.publicModel)), new Set(['beta']));
    assert.equal((await logs(`?deploymentId=${alpha}`)).body.data.length, 3, 'the failed call tried alpha');
    assert.equal((await logs('?status=failure')).body.data.length, 1);
    const failed = (await logs('?status=failure')).body.data[0];
    assert.equal((await logs(`?code=${failed.errorCode}`)).body.data.length, 1);
    assert.equal((await logs(`?keyId=${keyB.id}&publicModel=beta`)).body.data.length, 1);
  });

  it('filters by time', async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    const past = new Date(Date.now() - 3_600_000).toISOString();
    assert.equal((await logs(`?since=${encodeURIComponent(future)}`)).body.data.length, 0);
    assert.equal(
      (await logs(`?since=${encodeURIComponent(past)}&until=${encodeURIComponent(future)}`)).body.data.length,
      5,
    );
    assert.equal((await logs(`?until=${encodeURIComponent(past)}`)).body.data.length, 0);
  });

  it('pages newest first with nextCursor until null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Awaited<ReturnType<typeof logs>> = await logs(
        `?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.data.length <= 2);
      seen.push(...res.body.data.map((op) => op.requestId));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(seen, calls.map((call) => call.requestId).reverse());
  });

  it('answers 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['?limit=0', 'limit'],
      ['?limit=abc', 'limit'],
      ['?status=exploded', 'status'],
      ['?since=yesterday', 'since'],
      ['?cursor=not-a-cursor', 'cursor'],
      ['?model=alpha', 'model'],
    ] as const) {
      const res = await admin<{ error: { param: string; code: string } }>(gw, 'GET', `/admin/logs${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.param, param, query);
      assert.equal(res.body.error.code, 'invalid_request');
    }
    const usage = await admin<{ error: { param: string } }>(gw, 'GET', '/admin/usage?groupBy=planet');
    assert.equal(usage.status, 400);
    assert.equal(usage.body.error.param, 'groupBy');
  });

  it('refuses a virtual key and a missing key', async () => {
    const asKey = await fetch(`${gw.url}/admin/logs`, { headers: { authorization: `Bearer ${keyA.key}` } });
    assert.equal(asKey.status, 401);
    assert.equal((await fetch(`${gw.url}/admin/usage`)).status, 401);
  });

  it('sums requests, tokens and cost per model', async () => {
    const res = await admin<UsageReport>(gw, 'GET', '/admin/usage?groupBy=model');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.groupBy, 'model');
    const rows = await sql<{
      public_model: string;
      n: number;
      input: number;
      output: number;
      cached: number;
      cost: number;
      errors: number;
    }>`
      select public_model, count(*)::int as n, sum(coalesce(input_tokens, 0))::int as input,
             sum(coalesce(output_tokens, 0))::int as output,
             sum(coalesce(cached_input_tokens, 0))::int as cached, sum(cost_cents) as cost,
             (count(*) filter (where status = 'failure'))::int as errors
        from gateway_operations group by public_model order by public_model`;
    assert.deepEqual(
      res.body.data,
      rows.map((row) => ({
        group: row.public_model,
        requests: row.n,
        inputTokens: row.input,
        outputTokens: row.output,
        cachedInputTokens: row.cached,
        costCents: row.cost,
        errors: row.errors,
      })),
    );
    const alphaRow = res.body.data.find((row) => row.group === 'alpha')!;
    assert.equal(alphaRow.requests, 3);
    assert.ok(alphaRow.inputTokens > 0 && alphaRow.costCents > 0);
  });

  it('groups by key, deployment and day', async () => {
    const byKey = (await admin<UsageReport>(gw, 'GET', '/admin/usage?groupBy=key')).body.data;
    assert.deepEqual(Object.fromEntries(byKey.map((row) => [row.group, row.requests])), {
      [keyA.id]: 3,
      [keyB.id]: 2,
    });
    const byDeployment = (await admin<UsageReport>(gw, 'GET', '/admin/usage?groupBy=deployment')).body.data;
    assert.deepEqual(Object.fromEntries(byDeployment.map((row) => [row.group, row.requests])), {
      [alpha]: 3,
      [beta]: 2,
    });
    const byDay = (await admin<UsageReport>(gw, 'GET', '/admin/usage?groupBy=day')).body.data;
    const days = await sql<{ day: string; n: number }>`
      select to_char(started_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as n
        from gateway_operations group by 1 order by 1`;
    assert.deepEqual(
      byDay.map((row) => [row.group, row.requests]),
      days.map((row) => [row.day, row.n]),
    );
    assert.equal(
      byDay.reduce((sum, row) => sum + row.requests, 0),
      5,
    );
    const none = await admin<UsageReport>(
      gw,
      'GET',
      `/admin/usage?groupBy=day&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    assert.deepEqual(none.body.data, []);
  });
});

describe('GET /admin/logs and /admin/usage in variant A', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ redis: false, env: { GATEWAY_VARIANT: 'a' } });
  });
  after(() => gw.close());

  it('answers 404', async () => {
    assert.equal((await admin(gw, 'GET', '/admin/logs')).status, 404);
    assert.equal((await admin(gw, 'GET', '/admin/usage')).status, 404);
  });
});
