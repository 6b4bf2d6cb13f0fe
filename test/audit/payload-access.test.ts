import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { chat, connect, createDeployment, eventually, operationOf } from '../records/support.ts';
import { auditPage, send } from './support.ts';

const PROMPT = 'account 5521 balance dispute';

interface Samples {
  requestId: string;
  data: {
    operationId: string;
    sampleReason: string;
    payload: { request: { messages: { content: string }[] } };
  }[];
}

describe('GET /admin/logs/{requestId}/payload (variant B)', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let requestId: string;
  let operationId: string;

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await createDeployment(gw, { publicModel: 'sampled', baseUrl: fake.baseUrl });
    requestId = `pay-${randomUUID()}`;
    // A failure is always sampled; a 400 is not retried.
    fake.failNext(1, {
      status: 400,
      body: { error: { message: 'bad shard', type: 'invalid_request_error' } },
    });
    const res = await chat(gw, { token: gw.masterKey, model: 'sampled', requestId, content: PROMPT });
    assert.equal(res.status, 400);
    const sql = connect(gw);
    try {
      operationId = (await operationOf(sql, requestId, 'failure')).id;
      await eventually(async () => {
        const rows = await sql`select id from payload_samples where operation_id = ${operationId}`;
        return rows.length > 0 ? true : undefined;
      });
    } finally {
      await sql.end();
    }
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  const payload = (id: string, query: string) =>
    send<Samples & { error: { code: string; param: string } }>(
      gw,
      'GET',
      `/admin/logs/${id}/payload${query}`,
    );

  it('refuses a read without a reason, with an empty one and with an oversized one: 400 naming reason', async () => {
    for (const query of ['', '?reason=', '?reason=%20%20', `?reason=${'x'.repeat(501)}`]) {
      const res = await payload(requestId, query);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.param, 'reason');
      assert.ok(!res.text.includes('5521'));
    }
    const rows = await auditPage(gw, '?kind=payload_access');
    assert.equal(rows.body.data.length, 0, 'a refused read is no access');
  });

  it('answers 404 for a request id with no sample', async () => {
    const res = await payload(`none-${randomUUID()}`, '?reason=incident%2042');
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error.code, 'not_found');
  });

  it('decrypts the sample for the operator and writes a payload-access row with the reason', async () => {
    const reason = 'INC-2211: customer asked what was sent';
    const res = await payload(requestId, `?reason=${encodeURIComponent(reason)}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.requestId, requestId);
    assert.equal(res.body.data.length, 1);
    assert.equal(res.body.data[0].operationId, operationId);
    assert.equal(res.body.data[0].sampleReason, 'failure');
    assert.equal(res.body.data[0].payload.request.messages[0].content, PROMPT);

    // Written before the payload was answered: there at once, no polling.
    const page = await auditPage(gw, '?kind=payload_access');
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.data.length, 1);
    const [row] = page.body.data;
    assert.equal(row.kind, 'payload_access');
    assert.equal(row.requestId, requestId);
    assert.equal(row.resourceId, requestId);
    assert.equal(row.reason, reason);
    assert.equal(row.actor, 'master');
    assert.equal(row.method, 'GET');
    assert.equal(row.sourceAddress, '127.0.0.1');
    assert.equal(row.status, 200);
    assert.ok(!page.text.includes('5521'), 'the audit never holds the payload');
    assert.equal((await auditPage(gw, `?resourceId=${requestId}`)).body.data.length, 1);
  });

  it('answers 503 with Retry-After and shows nothing when the audit row cannot be written (issue 30)', async () => {
    const sql = connect(gw);
    try {
      // Every new audit row now fails its check: the write fails with the database up.
      await sql`alter table audit_events add constraint refuse_all check (false) not valid`;
      const res = await payload(requestId, '?reason=INC-1');
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.error.code, 'service_unavailable');
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      assert.ok(!res.text.includes('5521'), 'nothing of the payload is shown');
    } finally {
      await sql`alter table audit_events drop constraint if exists refuse_all`;
      await sql.end();
    }
  });
});
