import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { admin } from '../helpers/admin-api.ts';
import { runMain } from '../helpers/child.ts';
import { type ChildGateway, startChildGateway } from '../helpers/child-gateway.ts';
import { TEST_REDIS_URL } from '../helpers/database.ts';
import { eventually } from '../helpers/eventually.ts';
import { connectSql } from '../helpers/sql.ts';
import { adminRaw, chat, type ExtensionsRig, startRig } from './support.ts';

/** A marker only the extension's source holds: found anywhere in the database, the source leaked. */
const MARKER = `marker-${randomBytes(8).toString('hex')}`;
const SOURCE = `export function beforeUpstream(call) {
  if (call.body.messages[0].content === 'fail') throw new Error('${MARKER}');
}`;

/** Every row of every table of the public schema, as text: what a dump of the database would show. */
async function databaseText(url: string): Promise<string> {
  const sql = connectSql(url, 1);
  try {
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE'`;
    const texts: string[] = [];
    for (const { name } of tables) {
      const rows = await sql.unsafe<{ row: string }>(`select t::text as row from "${name}" t`);
      texts.push(...rows.map((row) => row.row));
    }
    return texts.join('\n');
  } finally {
    await sql.end();
  }
}

describe('extension storage (variant B)', () => {
  let rig: ExtensionsRig;
  let replica: ChildGateway | undefined;
  before(async () => {
    rig = await startRig({ env: { EXTENSION_BREAKER_THRESHOLD: '1' } });
    await admin(rig.gw, 'POST', '/extensions', {
      id: 'sealed',
      critical: true,
      models: ['gpt'],
      source: SOURCE,
    });
  });
  after(async () => {
    await replica?.stop();
    await rig.close();
  });

  it('keeps the source only as an envelope: not in plaintext anywhere in the database', async () => {
    const url = rig.gw.database?.url ?? '';
    const text = await databaseText(url);
    assert.ok(text.includes('sealed'), 'the scan sees the extensions table');
    assert.ok(!text.includes(MARKER), 'the source is not in plaintext');
    const sql = connectSql(url, 1);
    try {
      const [row] = await sql<{ envelope: string; key_id: string }>`
        select source_envelope as envelope, source_key_id as key_id from extensions where id = 'sealed'`;
      assert.ok(row.envelope.startsWith('sy1:k1:extension-artifact:'), row.envelope.slice(0, 40));
      assert.equal(row.key_id, 'k1');
    } finally {
      await sql.end();
    }
  });

  it('a reset reaches a second gateway process sharing the database and Redis', async () => {
    const database = rig.gw.database;
    assert.ok(database !== undefined);
    replica = await startChildGateway({
      database,
      env: {
        MASTER_KEY: rig.gw.env.MASTER_KEY,
        ENCRYPTION_KEYRING: rig.gw.env.ENCRYPTION_KEYRING,
        ACTIVE_ENCRYPTION_KEY_ID: rig.gw.env.ACTIVE_ENCRYPTION_KEY_ID,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_KEY_PREFIX: rig.gw.env.REDIS_KEY_PREFIX,
        EXTENSION_BREAKER_THRESHOLD: '1',
      },
    });
    const onReplica = { ...rig, gw: { ...rig.gw, url: replica.url } };
    const tripping = await chat(onReplica, 'fail');
    assert.equal(tripping.status, 503);
    assert.equal((await adminRaw(onReplica.gw, 'GET', '/extensions/sealed')).body.state, 'tripped');
    assert.equal(
      (await adminRaw(rig.gw, 'GET', '/extensions/sealed')).body.state,
      'active',
      'breakers are per replica',
    );

    const reset = await adminRaw(rig.gw, 'POST', '/extensions/sealed/reset');
    assert.equal(reset.status, 200);
    await eventually(async () => {
      assert.equal((await adminRaw(onReplica.gw, 'GET', '/extensions/sealed')).body.state, 'active');
    });
    assert.equal((await chat(onReplica, 'works')).status, 200);
  });

  it('encryption:rotate re-encrypts the source under the new active key and counts it', async () => {
    const url = rig.gw.database?.url ?? '';
    const k1 = JSON.parse(rig.gw.env.ENCRYPTION_KEYRING) as { k1: string };
    const env = {
      DATABASE_URL: url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: rig.gw.env.REDIS_KEY_PREFIX,
      MASTER_KEY: rig.gw.env.MASTER_KEY,
      ENCRYPTION_KEYRING: JSON.stringify({ ...k1, k2: randomBytes(32).toString('hex') }),
      ACTIVE_ENCRYPTION_KEY_ID: 'k2',
      LOG_LEVEL: 'warn',
    };
    const result = await runMain(['encryption:rotate'], env);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /^extensions: 1 re-encrypted$/m);
    const sql = connectSql(url, 1);
    try {
      const [row] = await sql<{ envelope: string; key_id: string }>`
        select source_envelope as envelope, source_key_id as key_id from extensions where id = 'sealed'`;
      assert.ok(row.envelope.startsWith('sy1:k2:extension-artifact:'));
      assert.equal(row.key_id, 'k2');
    } finally {
      await sql.end();
    }
    assert.ok(!(await databaseText(url)).includes(MARKER), 'still not in plaintext');
    const again = await runMain(['encryption:rotate'], env);
    assert.match(again.output, /^extensions: 0 re-encrypted$/m);
  });
});
