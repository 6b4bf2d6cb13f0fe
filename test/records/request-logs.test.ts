import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import { chat, connect, createDeployment, createKey, eventually } from './support.ts';

const PROMPT_LIMIT = 10;

interface RequestLog {
  request_id: string;
  key_id: string | null;
  public_model: string;
  deployment_id: string | null;
  status: number;
  error_code: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_cents: number;
  prompt: string | null;
  error_detail: Record<string, unknown> | null;
}

describe('variant A request_logs', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let sql: TestSql;
  let deploymentId: string;
  let key: { id: string; key: string };

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({
      env: { GATEWAY_VARIANT: 'a', MAX_STRING_LENGTH_PROMPT_IN_DB: String(PROMPT_LIMIT) },
    });
    sql = connect(gw);
    deploymentId = await createDeployment(gw, {
      publicModel: 'legacy',
      upstreamModel: 'in-house-finetune-a',
      baseUrl: fake.baseUrl,
    });
    key = await createKey(gw);
  });
  after(async () => {
    await sql.end();
    await gw.close();
    await fake.close();
  });

  const logOf = (requestId: string) =>
    eventually(async () => {
      const [row] = await sql<RequestLog>`select * from request_logs where request_id = ${requestId}`;
      return row;
    });

  it('writes one row per call into the day partition the job created at start', async () => {
    const requestId = `a-${randomUUID()}`;
    const res = await chat(gw, {
      token: key.key,
      model: 'legacy',
      requestId,
      content: 'hello from variant a',
    });
    assert.equal(res.status, 200, res.text);
    const row = await logOf(requestId);
    assert.equal(row.key_id, key.id);
    assert.equal(row.public_model, 'legacy');
    assert.equal(row.deployment_id, deploymentId);
    assert.equal(row.status, 200);
    assert.equal(row.error_code, null);
    assert.ok(row.input_tokens > 0 && row.output_tokens > 0);
    assert.equal(row.cost_cents, 0, 'an unpriced model is logged with zero cost');
    assert.equal(row.prompt, 'user: hell');
    const [{ partition }] = await sql<{ partition: string }>`
      select tableoid::regclass::text as partition from request_logs where request_id = ${requestId}`;
    assert.match(partition, /^request_logs_p\d{8}$/);
  });

  it('keeps the full provider error detail, correlated by request id', async () => {
    const requestId = `a-${randomUUID()}`;
    fake.failNext(1, {
      status: 400,
      body: { error: { message: 'tenant t-5521 flagged', type: 'invalid_request_error' } },
    });
    const res = await chat(gw, { token: key.key, model: 'legacy', requestId });
    assert.equal(res.status, 400, res.text);
    assert.ok(!res.text.includes('t-5521'));
    const row = await logOf(requestId);
    assert.equal(row.status, 400);
    assert.ok(row.error_code !== null);
    assert.match(JSON.stringify(row.error_detail), /t-5521/);
  });
});
