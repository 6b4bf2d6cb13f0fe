import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { keyringFromJson } from '../../src/crypto/index.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import { chat, connect, createDeployment, eventually, operationOf } from './support.ts';

/**
 * A native answer is passed on unparsed, its `answer` read from the bytes on demand; the response
 * cache's store stage copies the result. The copy must keep the answer, or a payload sample taken
 * after it records none (the stage once spread a result whose answer getter is its prototype's).
 */
describe('a sampled call whose answer the response cache stored', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let sql: TestSql;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({
      env: { OBSERVABILITY_PAYLOAD_SAMPLE_RATE: '1', RESPONSE_CACHE_TTL_MS: '60000' },
    });
    sql = connect(gw);
    await createDeployment(gw, { publicModel: 'cached-sampled', baseUrl: fake.baseUrl });
  });
  after(async () => {
    await sql.end();
    await gw.close();
    await fake.close();
  });

  it('keeps the answer the client got in its sample', async () => {
    const requestId = `cached-${randomUUID()}`;
    const res = await chat(gw, { token: gw.masterKey, model: 'cached-sampled', requestId });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-gateway-cache'), 'miss');
    const content = (res.body as { choices: { message: { content: string } }[] }).choices[0].message.content;
    const op = await operationOf(sql, requestId, 'success');
    const envelope = await eventually(async () => {
      const [row] = await sql<{ envelope: string }>`
        select envelope from payload_samples where operation_id = ${op.id} and reason = 'sampled'`;
      return row?.envelope;
    });
    const keyring = keyringFromJson(gw.env.ENCRYPTION_KEYRING, gw.env.ACTIVE_ENCRYPTION_KEY_ID);
    const plaintext = JSON.parse(keyring.openString('payload-sample', envelope));
    assert.equal(
      plaintext.response?.answer?.choices?.[0]?.message?.content,
      content,
      JSON.stringify(plaintext),
    );
  });
});
