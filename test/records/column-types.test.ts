import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ColumnType, positionalRows, rowJson, valuesReader } from '../../src/records/recordset-json.ts';
import { REQUEST_LOG_COLUMN_TYPES } from '../../src/records/variant-a/request-log-row.ts';
import { ATTEMPT_COLUMN_TYPES, OPERATION_COLUMN_TYPES } from '../../src/records/variant-b/operation-rows.ts';
import { createTestDatabase, migrateTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { connectSql, type TestSql } from '../helpers/sql.ts';

/**
 * The record rows go to Postgres as arrays of values (rowJson), cast back by the types written in
 * operation-rows.ts (variant B) and request-log-row.ts (variant A). A migration that changes a column's type must change them too:
 * a value cast to the wrong type would fail every batch, or store something else.
 */
const POSTGRES_TYPE: Record<ColumnType, string> = {
  text: 'text',
  integer: 'integer',
  numeric: 'numeric',
  boolean: 'boolean',
  timestamptz: 'timestamp with time zone',
  jsonb: 'jsonb',
  'text[]': 'ARRAY',
};

describe('the column types of positional record rows', () => {
  let database: TestDatabase;
  let sql: TestSql;
  before(async () => {
    database = await createTestDatabase();
    await migrateTestDatabase(database.url);
    sql = connectSql(database.url);
  });
  after(async () => {
    await sql?.end();
    await database?.drop();
  });

  async function columnsOf(table: string): Promise<Record<string, string>> {
    const rows = await sql<{ column_name: string; data_type: string }>`
      select column_name, data_type from information_schema.columns
      where table_schema = 'public' and table_name = ${table} order by ordinal_position`;
    return Object.fromEntries(rows.map((row) => [row.column_name, row.data_type]));
  }

  for (const [table, types] of [
    ['gateway_operations', OPERATION_COLUMN_TYPES],
    ['upstream_attempts', ATTEMPT_COLUMN_TYPES],
    ['request_logs', REQUEST_LOG_COLUMN_TYPES],
  ] as const) {
    it(`are ${table}'s columns, each with its migrated type`, async () => {
      const expected = Object.fromEntries(
        Object.entries(types).map(([column, type]) => [column, POSTGRES_TYPE[type as ColumnType]]),
      );
      assert.deepEqual(await columnsOf(table), expected);
    });
  }

  it('read every kind of value back as json_populate_recordset did: nulls, arrays, objects, numbers and times', async () => {
    const types = {
      name: 'text',
      count: 'integer',
      cents: 'numeric',
      flag: 'boolean',
      at: 'timestamptz',
      detail: 'jsonb',
      tags: 'text[]',
    } as const satisfies Record<string, ColumnType>;
    const columns = Object.keys(types) as (keyof typeof types)[];
    const rows = [
      {
        name: 'é "quoted" \\ back',
        count: 40,
        cents: 0.0123,
        flag: false,
        at: '2026-11-29T21:19:39.203Z',
        detail: { a: [1, null] },
        tags: ['x', 'y'],
      },
      { name: null, count: null, cents: 1e-7, flag: true, at: null, detail: null, tags: [] },
      { name: '', count: 0, cents: 0, flag: null, at: null, detail: 'text', tags: null },
    ];
    const read = valuesReader<(typeof rows)[number]>(columns);
    const positional = Buffer.from(`[${rows.map((row) => rowJson(read(row))).join(',')}]`);
    const keyed = JSON.stringify(rows);
    const list = columns.join(', ');
    // Each value and whether it is SQL NULL: a jsonb 'null' reads as null in JavaScript too.
    const select = columns.map((column) => `${column}, ${column} is null as ${column}_is_null`).join(', ');
    const typed = columns.map((column) => `${column} ${types[column]}`).join(', ');
    const fromArrays = await sql.unsafe(`select ${select} from (${positionalRows(types, 1)}) as r(${list})`, [
      positional,
    ]);
    const fromObjects = await sql.unsafe(
      `select ${select} from json_to_recordset($1::text::json) as r(${typed})`,
      [keyed],
    );
    assert.deepEqual(fromArrays, fromObjects);
    assert.deepEqual(fromArrays[1].tags, []);
    assert.equal(fromArrays[2].tags, null);
    assert.equal(fromArrays[1].detail_is_null, true);
  });
});
