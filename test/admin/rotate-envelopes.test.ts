import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Keyring } from '../../src/crypto/index.ts';
import { rotateEnvelopes } from '../../src/crypto/rotation/rotate-envelopes.ts';
import { ROTATORS } from '../../src/crypto/rotation/rotators.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { sqlOn, type TestSql } from '../helpers/sql.ts';

const KEYS = new Map([
  ['k1', randomBytes(32)],
  ['k2', randomBytes(32)],
]);
const underK1 = new Keyring(KEYS, 'k1');
const underK2 = new Keyring(KEYS, 'k2');
const deployments = ROTATORS.filter((rotator) => rotator.table === 'deployments');

/** The rotation engine against a real Postgres: batch bounds, row locks, compare-and-set. */
describe('rotateEnvelopes', () => {
  let database: TestDatabase;
  let db: Database;
  let sql: TestSql;
  before(async () => {
    database = await createTestDatabase();
    db = openDatabase({ url: database.url, poolMax: 4, timeoutMs: 5_000 });
    sql = sqlOn(db.background);
    await migrate(db.background);
  });
  after(async () => {
    await db.close();
    await database.drop();
  });
  beforeEach(async () => {
    await sql`delete from deployments`;
  });

  const seed = async (count: number) => {
    const rows = Array.from({ length: count }, (_, i) => ({
      id: `dep_${String(i).padStart(5, '0')}`,
      public_model: 'm',
      provider: 'openai',
      upstream_model: 'u',
      api_key_envelope: underK1.seal('deployment-credential', `sk-${i}`),
      api_key_key_id: 'k1',
    }));
    await sql`insert into deployments (id, public_model, provider, upstream_model, api_key_envelope, api_key_key_id)
      select id, public_model, provider, upstream_model, api_key_envelope, api_key_key_id
      from json_populate_recordset(null::deployments, ${JSON.stringify(rows)}::json)`;
  };

  it('works in bounded batches, each committed on its own, and opens to the same plaintext', async () => {
    await seed(250);
    const batches: number[] = [];
    const report = await rotateEnvelopes(db.background, underK2, deployments, {
      onBatch: (_table, batch) => batches.push(batch.rotated),
    });
    assert.deepEqual(report, [{ table: 'deployments', rotated: 250, failed: 0 }]);
    assert.deepEqual(batches, [100, 100, 50]);
    const rows = await sql<{ id: string; api_key_envelope: string; api_key_key_id: string }>`
      select id, api_key_envelope, api_key_key_id from deployments order by id`;
    for (const [i, row] of rows.entries()) {
      assert.equal(row.api_key_key_id, 'k2');
      assert.equal(underK2.openString('deployment-credential', row.api_key_envelope), `sk-${i}`);
    }
    assert.deepEqual(await rotateEnvelopes(db.background, underK2, deployments), [
      { table: 'deployments', rotated: 0, failed: 0 },
    ]);
  });

  it('skips a row a concurrent PATCH holds, and never overwrites what that PATCH wrote', async () => {
    await seed(3);
    const patched = underK2.seal('deployment-credential', 'sk-new');
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const patch = sql.begin(async (tx) => {
      await tx`select id from deployments where id = 'dep_00001' for update`;
      locked();
      await held;
      await tx`update deployments set api_key_envelope = ${patched}, api_key_key_id = 'k2' where id = 'dep_00001'`;
    });
    await isLocked;
    const report = await rotateEnvelopes(db.background, underK2, deployments);
    release();
    await patch;
    assert.equal(report[0].rotated, 2, 'the held row was skipped');
    const [row] = await sql<{ api_key_envelope: string }>`
      select api_key_envelope from deployments where id = 'dep_00001'`;
    assert.equal(row.api_key_envelope, patched);
    assert.equal((await rotateEnvelopes(db.background, underK2, deployments))[0].rotated, 0);
  });

  it('compare-and-set: an envelope changed since it was read is left alone', async () => {
    await seed(1);
    const [rotator] = deployments;
    const [row] = await sql<{ id: string; envelope: string }>`
      select id, api_key_envelope as envelope from deployments`;
    await sql`update deployments set api_key_envelope = ${underK1.seal('deployment-credential', 'sk-x')}`;
    const written = await sql.begin((tx) =>
      rotator.update(tx.db, row, underK2.reseal('deployment-credential', row.envelope), 'k2'),
    );
    assert.equal(written, false);
  });

  it('reports rows it cannot open and moves past them', async () => {
    await seed(3);
    const foreign = new Keyring(new Map([['k0', randomBytes(32)]]), 'k0');
    await sql`update deployments set api_key_envelope = ${foreign.seal('deployment-credential', 'x')},
      api_key_key_id = 'k0' where id = 'dep_00000'`;
    const failures: string[] = [];
    const report = await rotateEnvelopes(
      db.background,
      underK2,
      deployments,
      { onFailure: (_table, id, reason) => failures.push(`${id} ${reason}`) },
      1,
    );
    assert.deepEqual(report, [{ table: 'deployments', rotated: 2, failed: 1 }]);
    assert.equal(failures.length, 1);
    assert.match(failures[0], /^dep_00000 .*"k0" is not in the keyring/);
  });
});
