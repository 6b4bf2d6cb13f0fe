import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import {
  chat,
  connect,
  createDeployment,
  createKey,
  eventually,
  installRowVersions,
  operationOf,
} from './support.ts';

const PROMPT_LIMIT = 24;
const PROVIDER_WORDING = 'Upstream says: quota of org-4411 exhausted (internal shard 7)';

describe('variant B request records (gateway_operations, upstream_attempts)', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let sql: TestSql;
  let deploymentId: string;
  let key: { id: string; key: string };

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ env: { MAX_STRING_LENGTH_PROMPT_IN_DB: String(PROMPT_LIMIT) } });
    sql = connect(gw);
    deploymentId = await createDeployment(gw, { publicModel: 'records-model', baseUrl: fake.baseUrl });
    key = await createKey(gw);
    await installRowVersions(sql);
  });
  after(async () => {
    await sql.end();
    await gw.close();
    await fake.close();
  });

  it('writes one operation and one attempt per successful call, prompt truncated', async () => {
    const requestId = `rec-${randomUUID()}`;
    const content = 'a prompt that is certainly longer than the configured limit';
    const res = await chat(gw, { token: key.key, model: 'records-model', content, requestId });
    assert.equal(res.status, 200, res.text);

    const op = await operationOf(sql, requestId, 'success');
    assert.equal(op.http_status, 200);
    assert.equal(op.key_id, key.id);
    assert.equal(op.public_model, 'records-model');
    assert.equal(op.deployment_id, deploymentId);
    assert.equal(op.attempt_count, 1);
    assert.ok((op.input_tokens ?? 0) > 0 && (op.output_tokens ?? 0) > 0);
    assert.ok(op.prompt !== null && op.prompt.length <= PROMPT_LIMIT, op.prompt ?? '');
    assert.ok(op.prompt.startsWith('user: a prompt'));
    assert.ok(op.cost_cents > 0, 'gpt-4o-mini is priced by the catalog');

    const attempts = await sql`select * from upstream_attempts where operation_id = ${op.id}`;
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0].deployment_id, deploymentId);
    assert.equal(attempts[0].outcome, 'success');
    assert.equal(attempts[0].http_status, 200);
    assert.equal(attempts[0].error_detail, null);
  });

  it('records a model without pricing at zero cost', async () => {
    const requestId = `rec-${randomUUID()}`;
    await createDeployment(gw, {
      publicModel: 'unpriced-model',
      upstreamModel: 'in-house-finetune-7',
      baseUrl: fake.baseUrl,
    });
    const res = await chat(gw, { token: key.key, model: 'unpriced-model', requestId });
    assert.equal(res.status, 200, res.text);
    const op = await operationOf(sql, requestId, 'success');
    assert.ok((op.input_tokens ?? 0) > 0);
    assert.equal(op.cost_cents, 0);
  });

  it('records a streamed call with its usage', async () => {
    const requestId = `rec-${randomUUID()}`;
    const res = await chat(gw, { token: key.key, model: 'records-model', requestId, stream: true });
    assert.equal(res.status, 200);
    const op = await operationOf(sql, requestId, 'success');
    assert.ok((op.output_tokens ?? 0) > 0);
  });

  it('writes calls shorter than the flush interval once each, final, however the flushes fall', async () => {
    // Back-to-back calls for two and a half flush intervals: a call is in flight at every flush.
    const prefix = `short-${randomUUID()}`;
    const until = Date.now() + 2_500;
    let calls = 0;
    while (Date.now() < until) {
      const res = await chat(gw, {
        token: key.key,
        model: 'records-model',
        requestId: `${prefix}-${calls++}`,
      });
      assert.equal(res.status, 200, res.text);
    }
    const versions = await eventually(async () => {
      const rows = await sql<{ op: string; status: string }>`
        select v.op, v.status from row_versions v join gateway_operations o on o.id = v.id
        where o.request_id like ${`${prefix}-%`} and o.status = 'success'`;
      return rows.length >= calls ? rows : undefined;
    });
    assert.deepEqual(
      versions.filter((row) => row.op !== 'INSERT' || row.status !== 'success'),
      [],
      `${calls} calls: one insert of the final row each`,
    );
    assert.equal(versions.length, calls);
  });

  it('writes the operation in_progress once it has run a flush interval, then finalizes it', async () => {
    const requestId = `rec-${randomUUID()}`;
    // Its start row is due after 1 s and written by the next 1 s tick: at 1-2 s.
    fake.latencyMs = 4_000;
    try {
      const call = chat(gw, { token: key.key, model: 'records-model', requestId });
      const started = await operationOf(sql, requestId, 'in_progress');
      assert.equal(started.http_status, null);
      assert.equal((await call).status, 200);
      await operationOf(sql, requestId, 'success');
    } finally {
      fake.latencyMs = 0;
    }
  });

  it("keeps the provider's error detail in the attempt, never in the /v1 answer", async () => {
    const requestId = `rec-${randomUUID()}`;
    fake.failNext(1, {
      status: 400,
      body: { error: { message: PROVIDER_WORDING, type: 'invalid_request_error', code: null } },
    });
    const res = await chat(gw, { token: key.key, model: 'records-model', requestId });
    assert.equal(res.status, 400, res.text);
    assert.ok(!res.text.includes('org-4411'), 'the client never sees provider wording');

    const op = await operationOf(sql, requestId, 'failure');
    assert.equal(op.http_status, 400);
    assert.ok(op.error_code !== null);
    const [attempt] = await sql`select * from upstream_attempts where operation_id = ${op.id}`;
    assert.equal(attempt.outcome, 'failure');
    assert.equal(attempt.http_status, 400);
    assert.equal(attempt.error_code, op.error_code);
    assert.match(JSON.stringify(attempt.error_detail), /org-4411/);
  });

  it('writes one attempt row per upstream attempt of a retried call', async () => {
    const requestId = `rec-${randomUUID()}`;
    fake.failNext(1, { status: 503, body: { error: { message: PROVIDER_WORDING, type: 'server_error' } } });
    const res = await chat(gw, { token: key.key, model: 'records-model', requestId });
    assert.equal(res.status, 200, res.text);
    const op = await operationOf(sql, requestId, 'success');
    assert.equal(op.attempt_count, 2);
    const attempts = await sql`
      select attempt_index, outcome, http_status, error_detail from upstream_attempts
       where operation_id = ${op.id} order by attempt_index`;
    assert.deepEqual(
      attempts.map((a) => [a.attempt_index, a.outcome]),
      [
        [0, 'failure'],
        [1, 'success'],
      ],
    );
    assert.match(JSON.stringify(attempts[0].error_detail), /org-4411/);
    assert.equal(attempts[1].error_detail, null);
  });

  it('writes nothing but metadata: no body column holds the full request', async () => {
    const columns = await sql<{ column_name: string }>`
      select column_name from information_schema.columns where table_name = 'gateway_operations'`;
    const names = columns.map((c) => c.column_name);
    for (const forbidden of ['body', 'request', 'response', 'messages'])
      assert.ok(!names.includes(forbidden));
  });

  it('lets the call through unchanged when nothing else differs (records never fail a call)', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => chat(gw, { token: key.key, model: 'records-model' })),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      results.map(() => 200),
    );
    await eventually(async () => {
      const [row] = await sql<{
        n: number;
      }>`select count(*)::int as n from gateway_operations where status = 'in_progress'`;
      return row.n === 0 ? true : undefined;
    });
  });
});
