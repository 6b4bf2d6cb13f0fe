import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Keyring } from '../../src/crypto/index.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { spawnMain } from '../helpers/child.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/database.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { AdminClient, chat, errorOf, eventually, sqlFor } from './support.ts';

const K1 = randomBytes(32).toString('hex');
const K2 = randomBytes(32).toString('hex');
const MODELS = ['rot-a', 'rot-b', 'rot-c'];
const providerKey = (model: string) => `sk-${model}-${randomBytes(4).toString('hex')}`;

/** SPEC.md, Authentication, Variant B rotation, steps 1 to 5, end to end with real processes. */
describe('encryption:rotate (variant B)', () => {
  let database: TestDatabase;
  let fake: OpenAIFake;
  let gw: TestGateway | undefined;
  const keys = new Map(MODELS.map((model) => [model, providerKey(model)]));
  const shared = {
    MASTER_KEY: `sk-master-${randomBytes(16).toString('hex')}`,
    REDIS_KEY_PREFIX: `sy-test-${randomBytes(4).toString('hex')}:`,
  };
  const keyring = (entries: Record<string, string>, active: string) => ({
    ...shared,
    ENCRYPTION_KEYRING: JSON.stringify(entries),
    ACTIVE_ENCRYPTION_KEY_ID: active,
  });
  /** Rolls the single replica of this test onto a new environment (same database, same Redis prefix). */
  const roll = async (env: Record<string, string>) => {
    await gw?.close();
    gw = await startTestGateway({ database, env });
    return gw;
  };
  const rotate = (env: Record<string, string>) =>
    runRotate({ ...env, DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, LOG_LEVEL: 'warn' });

  before(async () => {
    database = await createTestDatabase();
    fake = await new OpenAIFake().start();
  });
  after(async () => {
    await gw?.close();
    await fake.close();
    await database.drop();
  });

  it('deployments are sealed under k1 while k1 is active', async () => {
    const first = await roll(keyring({ k1: K1 }, 'k1'));
    const admin = new AdminClient(first);
    for (const model of MODELS.slice(0, 2)) {
      const res = await admin.post('/admin/deployments', deployment(model, keys.get(model) ?? '', fake));
      assert.equal(res.status, 201);
      assert.equal(res.body.apiKeyKeyId, 'k1');
    }
    const keyless = await admin.post('/admin/deployments', {
      ...deployment('rot-none', '', fake),
      apiKey: null,
    });
    assert.equal(keyless.body.hasApiKey, false);
  });

  it('k2 is added, then made active: new writes use k2, old envelopes still open', async () => {
    await roll(keyring({ k1: K1, k2: K2 }, 'k1'));
    const second = await roll(keyring({ k1: K1, k2: K2 }, 'k2'));
    const res = await new AdminClient(second).post(
      '/admin/deployments',
      deployment('rot-c', keys.get('rot-c') ?? '', fake),
    );
    assert.equal(res.body.apiKeyKeyId, 'k2');
    for (const model of MODELS)
      assert.equal((await chat(second, second.masterKey, model)).status, 200, model);
    assert.deepEqual(await keyIds(database), { k1: 2, k2: 1 });
  });

  it('rotate re-encrypts every envelope not under k2 and reports the counts', async () => {
    const result = await rotate(keyring({ k1: K1, k2: K2 }, 'k2'));
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'deployments: 2 re-encrypted');
    const counts = lines.slice(0, -1).map((line) => {
      const match = /^([a-z_]+): (\d+) re-encrypted$/.exec(line);
      assert.ok(match, `a table line: ${line}`);
      return Number(match[2]);
    });
    assert.equal(lines.at(-1), `total: ${counts.reduce((a, b) => a + b, 0)}`);
    assert.match(result.stderr, /deployments: batch of 2 re-encrypted/, 'progress on stderr');
    assert.deepEqual(await keyIds(database), { k2: 3 });
    assert.ok(await envelopesStartWith(database, 'sy1:k2:deployment-credential:'));
    // The serving replica was told, and still serves every deployment.
    const serving = gw as TestGateway;
    for (const model of MODELS) {
      await eventually(async () => assert.equal((await chat(serving, serving.masterKey, model)).status, 200));
    }
  });

  it('a second run re-encrypts nothing: total: 0', async () => {
    const result = await rotate(keyring({ k1: K1, k2: K2 }, 'k2'));
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.ok(
      lines.slice(0, -1).every((line) => / 0 re-encrypted$/.test(line)),
      result.stdout,
    );
    assert.equal(lines.at(-1), 'total: 0');
  });

  it('with k1 removed, every deployment calls its upstream with its own key', async () => {
    const last = await roll(keyring({ k2: K2 }, 'k2'));
    for (const model of MODELS) {
      fake.reset();
      assert.equal((await chat(last, last.masterKey, model)).status, 200, model);
      assert.equal(fake.lastRequest?.headers.authorization, `Bearer ${keys.get(model)}`, model);
    }
  });

  it('an envelope under a key id the keyring lacks: 502 with a generic message, the id in the log', async () => {
    const id = await deploymentIdOf(database, 'rot-a');
    const stale = new Keyring(new Map([['k1', Buffer.from(K1, 'hex')]]), 'k1').seal(
      'deployment-credential',
      keys.get('rot-a') ?? '',
    );
    const sql = sqlFor(database.url);
    try {
      await sql`update deployments set api_key_envelope = ${stale}, api_key_key_id = 'k1' where id = ${id}`;
    } finally {
      await sql.end();
    }
    const serving = await roll(keyring({ k2: K2 }, 'k2'));
    const res = await chat(serving, serving.masterKey, 'rot-a');
    assert.equal(res.status, 502);
    assert.equal(errorOf(res).code, 'upstream_error');
    assert.ok(!res.raw.includes('k1') && !res.raw.includes('keyring'), `generic public message: ${res.raw}`);
    const logs = serving.logs.join('');
    assert.match(logs, /key id \\?"k1\\?"/, 'the log names the missing key id');
    assert.ok(logs.includes(id), 'the log names the deployment');
    assert.equal((await chat(serving, serving.masterKey, 'rot-b')).status, 200, 'the others still serve');

    const result = await rotate(keyring({ k2: K2 }, 'k2'));
    assert.equal(result.code, 1, 'rotation cannot open it and says so');
    assert.match(result.stderr, new RegExp(`deployments ${id}: cannot re-encrypt: .*"k1"`));
    assert.match(result.stdout, /^deployments: 0 re-encrypted$/m);
  });
});

function deployment(publicModel: string, apiKey: string, fake: OpenAIFake) {
  return { publicModel, provider: 'openai', upstreamModel: 'gpt-4o-mini', apiKey, baseUrl: fake.baseUrl };
}

/** `npm run encryption:rotate` as a child process, stdout and stderr apart. */
async function runRotate(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnMain(['encryption:rotate'], env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

async function keyIds(database: TestDatabase): Promise<Record<string, number>> {
  const sql = sqlFor(database.url);
  try {
    const rows = await sql<{ key_id: string; n: number }>`
      select api_key_key_id as key_id, count(*)::int as n from deployments
      where api_key_envelope is not null group by 1 order by 1`;
    return Object.fromEntries(rows.map((row) => [row.key_id, row.n]));
  } finally {
    await sql.end();
  }
}

async function envelopesStartWith(database: TestDatabase, prefix: string): Promise<boolean> {
  const sql = sqlFor(database.url);
  try {
    const rows = await sql<{ envelope: string }>`
      select api_key_envelope as envelope from deployments where api_key_envelope is not null`;
    return rows.every((row) => row.envelope.startsWith(prefix));
  } finally {
    await sql.end();
  }
}

async function deploymentIdOf(database: TestDatabase, publicModel: string): Promise<string> {
  const sql = sqlFor(database.url);
  try {
    const [row] = await sql<{ id: string }>`select id from deployments where public_model = ${publicModel}`;
    return row.id;
  } finally {
    await sql.end();
  }
}
