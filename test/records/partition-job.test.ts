import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { partitionName, runPartitionMaintenance } from '../../src/jobs/partition-job.ts';
import { addDays, utcDay } from '../../src/jobs/utc-days.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { sqlOn, type TestSql } from '../helpers/sql.ts';

const HOUR_MS = 3_600_000;
const today = utcDay(new Date());

describe('request_logs partition job (variant A)', () => {
  let testDb: TestDatabase;
  let database: Database;
  let sql: TestSql;
  const options = () => ({
    db: database.background,
    intervalMs: HOUR_MS,
    createDays: 3,
    retentionDays: 30,
    now: () => new Date(today.getTime() + 12 * HOUR_MS),
  });

  before(async () => {
    testDb = await createTestDatabase();
    database = openDatabase({ url: testDb.url, poolMax: 4, timeoutMs: 5000 });
    sql = sqlOn(database.background);
    await migrate(database.background);
  });
  after(async () => {
    await database.close();
    await testDb.drop();
  });
  beforeEach(async () => {
    await sql`delete from job_runs`;
    await sql`delete from request_logs`;
    for (const name of await partitions()) await sql.unsafe(`drop table ${name}`);
  });

  async function partitions(): Promise<string[]> {
    const rows = await sql<{ name: string }>`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent = 'request_logs'::regclass and c.relname <> 'request_logs_default'
       order by 1`;
    return rows.map((row) => row.name);
  }

  async function insertLog(id: string, createdAt: Date): Promise<void> {
    await sql`insert into request_logs
      (id, request_id, created_at, operation, public_model, status, latency_ms)
      values (${id}, ${`req-${id}`}, ${createdAt}, 'chat.completions', 'gpt', 200, 5)`;
  }

  async function rowsIn(table: string): Promise<string[]> {
    const rows = await sql.unsafe<{ id: string }>(`select id from ${table} order by id`);
    return rows.map((row) => row.id);
  }

  it('moves rows out of DEFAULT into their daily partitions', async () => {
    const twoDaysAgo = addDays(today, -2);
    await insertLog('a', new Date(twoDaysAgo.getTime() + HOUR_MS));
    await insertLog('b', new Date(twoDaysAgo.getTime() + 20 * HOUR_MS));
    await insertLog('c', new Date(today.getTime() + HOUR_MS));
    assert.deepEqual(await rowsIn('request_logs_default'), ['a', 'b', 'c']);

    const result = await runPartitionMaintenance(options());

    assert.equal(result.ran, true);
    assert.deepEqual(await rowsIn('request_logs_default'), []);
    assert.deepEqual(await rowsIn(partitionName(twoDaysAgo)), ['a', 'b']);
    assert.deepEqual(await rowsIn(partitionName(today)), ['c']);
    assert.deepEqual(await rowsIn('request_logs'), ['a', 'b', 'c']);
  });

  it('creates partitions for today and the configured days ahead', async () => {
    const result = await runPartitionMaintenance(options());
    assert.equal(result.ran, true);
    const expected = [0, 1, 2, 3].map((offset) => partitionName(addDays(today, offset)));
    assert.deepEqual(await partitions(), expected);
    assert.ok(result.ran && result.drained.length === 0, 'nothing to drain when DEFAULT is empty');
    // A row for the day after tomorrow now lands in its partition, not in DEFAULT.
    await insertLog('ahead', addDays(today, 2));
    assert.deepEqual(await rowsIn(partitionName(addDays(today, 2))), ['ahead']);
  });

  it('drops partitions older than the retention and deletes expired rows left in DEFAULT', async () => {
    const old = addDays(today, -40);
    const kept = addDays(today, -30);
    for (const day of [old, kept]) {
      await sql.unsafe(
        `create table ${partitionName(day)} partition of request_logs
           for values from ('${day.toISOString()}') to ('${addDays(day, 1).toISOString()}')`,
      );
    }
    await insertLog('old', new Date(old.getTime() + HOUR_MS));
    await insertLog('kept', new Date(kept.getTime() + HOUR_MS));
    await insertLog('stray', addDays(today, -35));

    const result = await runPartitionMaintenance(options());

    assert.ok(result.ran);
    assert.deepEqual(result.dropped, [partitionName(old)]);
    assert.equal(result.expiredFromDefault, 1);
    assert.ok(!(await partitions()).includes(partitionName(old)));
    assert.deepEqual(await rowsIn('request_logs'), ['kept']);
  });

  it('runs on one instance per cycle when two run at once', async () => {
    const other = openDatabase({ url: testDb.url, poolMax: 2, timeoutMs: 5000 });
    try {
      await insertLog('x', addDays(today, -1));
      const results = await Promise.all([
        runPartitionMaintenance(options()),
        runPartitionMaintenance({ ...options(), db: other.background }),
      ]);
      assert.equal(results.filter((r) => r.ran).length, 1, JSON.stringify(results));
      const skipped = results.find((r) => !r.ran);
      assert.ok(skipped !== undefined && ['locked', 'ran-this-cycle'].includes(skipped.reason));
      // Later in the same cycle, neither instance runs it again.
      assert.deepEqual(await runPartitionMaintenance({ ...options(), db: other.background }), {
        ran: false,
        reason: 'ran-this-cycle',
      });
    } finally {
      await other.close();
    }
  });

  it('never lets two instances inside the job at the same moment', async () => {
    const other = openDatabase({ url: testDb.url, poolMax: 2, timeoutMs: 5000 });
    try {
      // Hold the job's advisory lock as a running instance would; the other skips instead of waiting.
      await sql.begin(async (tx) => {
        const [claim] =
          await tx`select pg_try_advisory_xact_lock(${(0x73792d70617274n).toString()}::bigint) as ok`;
        assert.equal(claim.ok, true);
        const result = await runPartitionMaintenance({ ...options(), db: other.background });
        assert.deepEqual(result, { ran: false, reason: 'locked' });
      });
    } finally {
      await other.close();
    }
  });
});
