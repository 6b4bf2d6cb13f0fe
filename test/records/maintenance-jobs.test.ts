import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { runReconcile } from '../../src/jobs/reconcile-job.ts';
import { runRetention } from '../../src/jobs/retention-job.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { sqlOn, type TestSql } from '../helpers/sql.ts';

const DAY_MS = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms);

describe('variant B maintenance: retention and reconcile', () => {
  let testDb: TestDatabase;
  let database: Database;
  let sql: TestSql;
  let other: Database;

  before(async () => {
    testDb = await createTestDatabase();
    database = openDatabase({ url: testDb.url, poolMax: 4, timeoutMs: 5000 });
    sql = sqlOn(database.background);
    other = openDatabase({ url: testDb.url, poolMax: 4, timeoutMs: 5000 });
    await migrate(database.background);
  });
  after(async () => {
    await database.close();
    await other.close();
    await testDb.drop();
  });
  beforeEach(async () => {
    await sql`truncate gateway_operations, upstream_attempts, payload_samples`;
  });

  async function operation(id: string, startedAt: Date, status = 'success'): Promise<void> {
    await sql`insert into gateway_operations (id, request_id, started_at, status, operation, public_model)
      values (${id}, ${`req-${id}`}, ${startedAt}, ${status}, 'chat.completions', 'm')`;
    await sql`insert into upstream_attempts (operation_id, attempt_index, request_id, deployment_id, provider,
        upstream_model, public_model, started_at, outcome)
      values (${id}, 0, ${`req-${id}`}, 'dep_1', 'openai', 'u', 'm', ${startedAt},
        ${status === 'in_progress' ? 'in_progress' : 'success'})`;
  }

  async function sample(id: string, createdAt: Date): Promise<void> {
    await sql`insert into payload_samples (id, operation_id, request_id, created_at, reason, envelope,
        envelope_key_id, size_bytes)
      values (${id}, 'op', 'req', ${createdAt}, 'failure', 'sy1:k1:payload-sample:x:y:z', 'k1', 1)`;
  }

  const ids = async (table: string) =>
    (
      await sql.unsafe<{ id: string }>(
        `select ${table === 'upstream_attempts' ? 'operation_id as id' : 'id'} from ${table} order by 1`,
      )
    ).map((row) => row.id);

  it('deletes operations and attempts past the metadata retention, samples past the payload retention', async () => {
    await operation('op_old', ago(31 * DAY_MS));
    await operation('op_new', ago(29 * DAY_MS));
    await sample('smp_old', ago(8 * DAY_MS));
    await sample('smp_new', ago(6 * DAY_MS));

    const result = await runRetention({
      db: database.background,
      metadataRetentionDays: 30,
      payloadRetentionDays: 7,
    });

    assert.deepEqual(result, { operations: 1, attempts: 1, samples: 1 });
    assert.deepEqual(await ids('gateway_operations'), ['op_new']);
    assert.deepEqual(await ids('upstream_attempts'), ['op_new']);
    assert.deepEqual(await ids('payload_samples'), ['smp_new']);
  });

  it('is idempotent, and replicas running it together split the work in bounded batches', async () => {
    for (let i = 0; i < 25; i += 1) await operation(`op_${String(i).padStart(2, '0')}`, ago(40 * DAY_MS + i));
    const options = { metadataRetentionDays: 30, payloadRetentionDays: 7, batchRows: 4 };
    const results = await Promise.all([
      runRetention({ ...options, db: database.background }),
      runRetention({ ...options, db: other.background }),
    ]);
    assert.equal(results[0].operations + results[1].operations, 25);
    assert.equal(results[0].attempts + results[1].attempts, 25);
    assert.deepEqual(await runRetention({ ...options, db: database.background }), {
      operations: 0,
      attempts: 0,
      samples: 0,
    });
  });

  it('marks operations and attempts left in_progress past the bound as abandoned, once', async () => {
    await operation('op_stale', ago(30 * 60_000), 'in_progress');
    await operation('op_running', ago(60_000), 'in_progress');
    await operation('op_done', ago(60 * 60_000), 'success');

    const results = await Promise.all([
      runReconcile({ db: database.background, staleAfterMs: 20 * 60_000 }),
      runReconcile({ db: other.background, staleAfterMs: 20 * 60_000 }),
    ]);
    assert.equal(results[0].operations + results[1].operations, 1);
    assert.equal(results[0].attempts + results[1].attempts, 1);

    const rows = await sql<{ id: string; status: string; finished: boolean }>`
      select id, status, finished_at is not null as finished from gateway_operations order by id`;
    assert.deepEqual(
      [...rows],
      [
        { id: 'op_done', status: 'success', finished: false },
        { id: 'op_running', status: 'in_progress', finished: false },
        { id: 'op_stale', status: 'abandoned', finished: true },
      ],
    );
    const [attempt] = await sql`select outcome from upstream_attempts where operation_id = 'op_stale'`;
    assert.equal(attempt.outcome, 'abandoned');
    assert.deepEqual(await runReconcile({ db: database.background, staleAfterMs: 20 * 60_000 }), {
      operations: 0,
      attempts: 0,
    });
  });
});
