import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { keyringFromCredentialsKey } from '../../src/crypto/index.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { runMain } from '../helpers/child.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { AdminClient, chat, errorOf } from './support.ts';

const OLD_KEY = randomBytes(32).toString('hex');
const NEW_KEY = randomBytes(32).toString('hex');
const OLD_ID = keyringFromCredentialsKey(OLD_KEY).activeId;
const NEW_ID = keyringFromCredentialsKey(NEW_KEY).activeId;

/** SPEC.md, Authentication, Variant A: one CREDENTIALS_ENCRYPTION_KEY; rotation by PATCH. */
describe('credential encryption, variant A', () => {
  let database: TestDatabase;
  let fake: OpenAIFake;
  let gw: TestGateway | undefined;
  let deploymentId = '';
  const upstreamKey = `sk-a-${randomBytes(8).toString('hex')}`;
  const env = (credentialsKey: string) => ({
    GATEWAY_VARIANT: 'a',
    MASTER_KEY: 'variant-a-master-key',
    CREDENTIALS_ENCRYPTION_KEY: credentialsKey,
  });
  const restart = async (credentialsKey: string) => {
    await gw?.close();
    gw = await startTestGateway({ database, redis: false, env: env(credentialsKey) });
    return gw;
  };

  before(async () => {
    database = await createTestDatabase();
    fake = await new OpenAIFake().start();
  });
  after(async () => {
    await gw?.close();
    await fake.close();
    await database.drop();
  });

  it('seals the credential under the id derived from CREDENTIALS_ENCRYPTION_KEY', async () => {
    const first = await restart(OLD_KEY);
    const res = await new AdminClient(first).post('/admin/deployments', {
      publicModel: 'a-model',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      apiKey: upstreamKey,
      baseUrl: fake.baseUrl,
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.apiKeyKeyId, OLD_ID);
    deploymentId = String(res.body.id);
    assert.equal((await chat(first, first.masterKey, 'a-model')).status, 200);
  });

  it('under another key, a call fails with a generic 502 and the log names the key id', async () => {
    const second = await restart(NEW_KEY);
    const res = await chat(second, second.masterKey, 'a-model');
    assert.equal(res.status, 502);
    assert.equal(errorOf(res).code, 'upstream_error');
    assert.ok(!res.raw.includes(OLD_ID), 'the public message is generic');
    const logs = second.logs.join('');
    assert.ok(logs.includes(OLD_ID), 'the log names the key id');
    assert.ok(logs.includes(deploymentId), 'and the deployment');
  });

  it('encryption:rotate explains that variant A rotates by PATCH, and counts what is left', async () => {
    const result = await runMain(['encryption:rotate'], {
      ...env(NEW_KEY),
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
    });
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /rotates by PATCH/);
    assert.match(result.output, /1 deployment\(s\) are sealed under a key other than/);
  });

  it('PATCH with the plaintext key re-encrypts it under the current key', async () => {
    const serving = gw as TestGateway;
    const res = await new AdminClient(serving).patch(`/admin/deployments/${deploymentId}`, {
      apiKey: upstreamKey,
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.apiKeyKeyId, NEW_ID);
    assert.equal((await chat(serving, serving.masterKey, 'a-model')).status, 200);
    assert.equal(fake.lastRequest?.headers.authorization, `Bearer ${upstreamKey}`);
    const result = await runMain(['encryption:rotate'], { ...env(NEW_KEY), DATABASE_URL: database.url });
    assert.match(result.output, / 0 deployment\(s\) are sealed under a key other than/);
  });
});
