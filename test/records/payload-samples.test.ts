import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { type Keyring, keyringFromJson } from '../../src/crypto/index.ts';
import { PAYLOAD_SAMPLE_DEFAULTS } from '../../src/records/variant-b/payload-sampler.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { spawnMain } from '../helpers/child.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import { chat, connect, createDeployment, eventually, operationOf } from './support.ts';

interface SampleRow {
  id: string;
  operation_id: string;
  reason: string;
  envelope: string;
  envelope_key_id: string;
  size_bytes: number;
}

const SECRET_PROMPT = 'patient 4471 reports chest pain';

describe('payload_samples (variant B)', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let sql: TestSql;
  let keyring: Keyring;

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    sql = connect(gw);
    keyring = keyringFromJson(gw.env.ENCRYPTION_KEYRING, gw.env.ACTIVE_ENCRYPTION_KEY_ID);
    await createDeployment(gw, { publicModel: 'sampled', baseUrl: fake.baseUrl });
  });
  after(async () => {
    await sql.end();
    await gw.close();
    await fake.close();
  });

  async function failingCall(content: string): Promise<SampleRow> {
    const requestId = `smp-${randomUUID()}`;
    // A 400 is not retried: one attempt, one failure.
    fake.failNext(1, {
      status: 400,
      body: { error: { message: 'shard 12 overloaded', type: 'invalid_request_error' } },
    });
    const res = await chat(gw, { token: gw.masterKey, model: 'sampled', requestId, content });
    assert.equal(res.status, 400);
    const op = await operationOf(sql, requestId, 'failure');
    return eventually(async () => {
      const [row] = await sql<SampleRow>`select * from payload_samples where operation_id = ${op.id}`;
      return row;
    });
  }

  it('samples every failure, sealed for purpose payload-sample: unreadable without the keyring', async () => {
    const sample = await failingCall(SECRET_PROMPT);
    assert.equal(sample.reason, 'failure');
    assert.equal(sample.envelope_key_id, 'k1');
    assert.ok(sample.envelope.startsWith('sy1:k1:payload-sample:'));
    assert.ok(!sample.envelope.includes('4471'));
    assert.ok(!Buffer.from(sample.envelope.split(':')[4], 'base64url').toString('utf8').includes('4471'));

    const stranger = keyringFromJson(JSON.stringify({ k1: randomBytes(32).toString('hex') }), 'k1');
    assert.throws(() => stranger.openString('payload-sample', sample.envelope), /failed authentication/);
    assert.throws(() => keyring.openString('deployment-credential', sample.envelope), /purpose/);

    const plaintext = JSON.parse(keyring.openString('payload-sample', sample.envelope));
    assert.equal(plaintext.request.messages[0].content, SECRET_PROMPT);
    assert.match(JSON.stringify(plaintext.error), /shard 12 overloaded/);
    assert.equal(sample.size_bytes, Buffer.byteLength(keyring.openString('payload-sample', sample.envelope)));
  });

  it('bounds a sample to 8 KiB of plaintext', async () => {
    const sample = await failingCall(`long ${'x'.repeat(50_000)}`);
    const plaintext = keyring.openString('payload-sample', sample.envelope);
    assert.ok(Buffer.byteLength(plaintext) <= PAYLOAD_SAMPLE_DEFAULTS.maxBytes);
    assert.equal(JSON.parse(plaintext).truncated, true);
  });

  it('is readable after encryption:rotate moves it to the new active key', async () => {
    const sample = await failingCall('rotate me');
    const k2 = randomBytes(32).toString('hex');
    const entries = { ...JSON.parse(gw.env.ENCRYPTION_KEYRING), k2 };
    const env = {
      MASTER_KEY: gw.env.MASTER_KEY,
      DATABASE_URL: gw.database?.url ?? '',
      ENCRYPTION_KEYRING: JSON.stringify(entries),
      ACTIVE_ENCRYPTION_KEY_ID: 'k2',
      LOG_LEVEL: 'warn',
    };
    const child = spawnMain(['encryption:rotate'], env);
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, child.output());
    assert.match(child.output(), /^payload_samples: [1-9]\d* re-encrypted$/m);

    const [row] = await sql<SampleRow>`select * from payload_samples where id = ${sample.id}`;
    assert.equal(row.envelope_key_id, 'k2');
    assert.ok(row.envelope.startsWith('sy1:k2:payload-sample:'));
    const onlyK2 = keyringFromJson(JSON.stringify({ k2 }), 'k2');
    assert.equal(
      JSON.parse(onlyK2.openString('payload-sample', row.envelope)).request.messages[0].content,
      'rotate me',
    );
    const [left] = await sql<{
      n: number;
    }>`select count(*)::int as n from payload_samples where envelope_key_id <> 'k2'`;
    assert.equal(left.n, 0);
  });
});
