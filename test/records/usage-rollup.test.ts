import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queryUsage, type UsageFilter } from '../../src/records/queries/usage-query.ts';
import { rollUpUsage } from '../../src/records/usage-rollup.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { createTestDatabase, migrateTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { connectSql, type TestSql } from '../helpers/sql.ts';

const HOUR_MS = 3_600_000;
/** The test's clock: half past an hour, so "now" is never on an hour's edge. */
const NOW = new Date(Date.UTC(2030, 0, 10, 12, 30));
const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR_MS);
/** The start of the UTC hour `hoursAgo` back. */
const hourOf = (hoursAgo: number) => new Date(Math.floor(at(hoursAgo).getTime() / HOUR_MS) * HOUR_MS);

/** Reports over whole hours, ragged ends, the unrolled tail and every grouping and bucket. */
const FILTERS: Record<string, UsageFilter> = {
  'model, everything': { groupBy: 'model' },
  'key per hour': { groupBy: 'key', bucket: 'hour' },
  'tag per day': { groupBy: 'tag', bucket: 'day' },
  'team, ragged ends': { groupBy: 'team', from: new Date(at(9).getTime() + 17 * 60_000), to: at(2.2) },
  'deployment per hour, across the mark': { groupBy: 'deployment', bucket: 'hour', from: at(4), to: NOW },
  'day, a range inside one hour': { groupBy: 'day', from: at(5.9), to: at(5.1) },
};

describe('usage rollups (issue 35 item 4)', () => {
  let database: TestDatabase;
  let db: Database;
  let sql: TestSql;
  let serial = 0;

  /** `count` calls spread over the hour `hoursAgo` back, with keys, teams, tags and failures. */
  async function insertCalls(hoursAgo: number, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      serial++;
      const started = new Date(at(hoursAgo).getTime() + ((i * 7919) % 3_600) * 1000);
      const tags = serial % 3 === 0 ? [] : serial % 3 === 1 ? ['a'] : ['a', `b${serial % 2}`];
      await sql`insert into gateway_operations
          (id, request_id, started_at, finished_at, status, operation, key_id, team_id, public_model,
           deployment_id, input_tokens, output_tokens, cached_input_tokens, cost_cents, tags)
        values (${`op_${serial}`}, ${`req-${serial}`}, ${started}, ${started},
                ${serial % 5 === 0 ? 'failure' : 'success'}, 'chat.completions',
                ${serial % 7 === 0 ? null : `key_${serial % 3}`}, ${serial % 2 === 0 ? 'team_1' : null},
                ${`model-${serial % 2}`}, ${serial % 11 === 0 ? null : `dep_${serial % 3}`},
                ${10 + serial}, ${serial % 4 === 0 ? null : 5}, ${serial % 3 === 0 ? 2 : null},
                ${(serial * 0.013).toFixed(6)}, ${tags})`;
    }
  }

  async function reports(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [name, filter] of Object.entries(FILTERS)) out[name] = await queryUsage(db.db, filter);
    return out;
  }

  const rollUp = () =>
    rollUpUsage({ db: db.background, settleMs: HOUR_MS, retentionDays: 30, now: () => NOW });

  before(async () => {
    database = await createTestDatabase();
    await migrateTestDatabase(database.url);
    db = openDatabase({ url: database.url, poolMax: 2, timeoutMs: 10_000 });
    sql = connectSql(database.url);
    for (let hour = 10; hour >= 0; hour--) await insertCalls(hour, 12);
  });
  after(async () => {
    await sql?.end();
    await db?.close();
    await database?.drop();
  });

  it('answers every report exactly as the records do, reading the settled hours from the rollups', async () => {
    const before = await reports();
    const first = await rollUp();
    // The first record's hour up to the hour that ended at least an hour before NOW.
    assert.equal(first.from, hourOf(10).toISOString());
    assert.equal(first.to, hourOf(1).toISOString());
    assert.ok(first.rows > 0);
    const [{ count }] = await sql<{ count: string }>`select count(*)::text as count from usage_hourly`;
    assert.equal(Number(count), first.rows);
    assert.deepEqual(await reports(), before);
  });

  it('reads the rollups, not the records, for the hours they hold', async () => {
    // A record of a rolled-up hour changed behind the rollups' back: the report keeps the rollup's figures.
    const before = await queryUsage(db.db, { groupBy: 'model', from: hourOf(8), to: hourOf(6) });
    await sql`update gateway_operations set input_tokens = input_tokens + 1000
               where started_at >= ${hourOf(8)} and started_at < ${hourOf(6)}`;
    assert.deepEqual(await queryUsage(db.db, { groupBy: 'model', from: hourOf(8), to: hourOf(6) }), before);
    await sql`update gateway_operations set input_tokens = input_tokens - 1000
               where started_at >= ${hourOf(8)} and started_at < ${hourOf(6)}`;
  });

  it('a run with nothing settled changes nothing; a later hour joins once it settles', async () => {
    assert.deepEqual(await rollUp(), { rows: 0, expired: 0 });
    await insertCalls(0, 5);
    const before = await reports();
    const later = await rollUpUsage({
      db: db.background,
      settleMs: HOUR_MS,
      retentionDays: 30,
      now: () => new Date(NOW.getTime() + 2 * HOUR_MS),
    });
    assert.equal(later.from, hourOf(1).toISOString());
    assert.ok(later.rows > 0);
    assert.deepEqual(await reports(), before);
  });

  it('drops rolled-up hours past the records retention', async () => {
    const result = await rollUpUsage({
      db: db.background,
      settleMs: HOUR_MS,
      retentionDays: 30,
      now: () => new Date(NOW.getTime() + 30 * 86_400_000 + 5 * HOUR_MS),
    });
    assert.ok(result.expired > 0, 'the oldest hours are gone');
    const [{ oldest }] = await sql<{ oldest: Date }>`select min(started_at) as oldest from usage_hourly`;
    assert.ok(oldest.getTime() >= NOW.getTime() + 5 * HOUR_MS - 30 * 86_400_000 - HOUR_MS);
  });
});
