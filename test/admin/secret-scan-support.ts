/**
 * What the secret scans share: the pieces of a secret to look for, and every stored value of the
 * schema to look in.
 */
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import { sqlFor } from './support.ts';

/** Every 12-character window of the key's random part: "any part of it". */
export function pieces(core: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 12 <= core.length; i += 6) found.push(core.slice(i, i + 12));
  return found;
}

export function assertAbsent(haystack: string, needles: readonly string[], where: string): void {
  for (const needle of needles)
    assert.ok(!haystack.includes(needle), `a piece of the provider key is in ${where}`);
}

/** An identifier as SQL text. */
function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** Every text-like and binary value of every table of the schema, as text (bytea decoded as UTF-8 and latin1). */
export async function everyStoredValue(sql: TestSql): Promise<Array<{ where: string; text: string }>> {
  const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select c.table_name, c.column_name, c.data_type
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
      and c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY', 'USER-DEFINED')`;
  assert.ok(columns.some((c) => c.table_name === 'deployments' && c.column_name === 'api_key_envelope'));
  const values: Array<{ where: string; text: string }> = [];
  for (const column of columns) {
    const where = `${column.table_name}.${column.column_name}`;
    const [name, table] = [quoted(column.column_name), quoted(column.table_name)];
    const rows = await sql.unsafe<{ value: unknown }>(
      `select ${name} as value from ${table} where ${name} is not null`,
    );
    for (const { value } of rows) {
      if (Buffer.isBuffer(value)) {
        values.push({ where, text: value.toString('utf8') }, { where, text: value.toString('latin1') });
      } else {
        values.push({ where, text: typeof value === 'string' ? value : JSON.stringify(value) });
      }
    }
  }
  return values;
}

/**
 * No needle in the admin answers, the log lines or any stored value of a gateway that has shut down
 * (its queued records flushed). `rowMarker` is text some stored row must hold, so a scan that read
 * nothing cannot pass.
 */
export async function assertNowhere(
  gw: TestGateway,
  answers: readonly string[],
  needles: readonly string[],
  rowMarker: string,
): Promise<void> {
  for (const answer of answers) assertAbsent(answer, needles, 'an admin answer');
  assert.ok(gw.logs.length > 10, 'the scan reads the logs it should');
  assertAbsent(gw.logs.join('\n'), needles, 'the logs');
  const sql = sqlFor(gw.database?.url ?? '');
  try {
    const values = await everyStoredValue(sql);
    assert.ok(
      values.some(({ text }) => text.includes(rowMarker)),
      'the scan reads the rows it should',
    );
    for (const { where, text } of values) assertAbsent(text, needles, where);
  } finally {
    await sql.end();
  }
}
