import type { Selectable } from 'kysely';
import { cleanText } from './prompt.ts';

/**
 * A batch of rows as the one JSON parameter of an `INSERT … SELECT … FROM json_populate_recordset`:
 * one parameter per statement instead of one per row and column, a statement text that does not
 * change with the batch size (so it is prepared once per connection), and `JSON.stringify` doing
 * the serialization natively; serializing rows as parameters cost far more (docs/decisions/hot-path.md).
 * Row fields are named after their columns.
 */
export function recordsetJson(rows: readonly object[]): string {
  return cleanJson(rows);
}

/**
 * One row's JSON, cleaned as `recordsetJson` cleans a batch, for a row serialized when it is made
 * rather than with its batch; held-rows.ts `recordsetBytes` joins such rows into the parameter.
 */
export function rowJson(row: object): string {
  return cleanJson(row);
}

function cleanJson(value: object): string {
  const text = JSON.stringify(value);
  // JSON escapes NUL and a lone surrogate as `\u…`, and Postgres refuses both when it turns a JSON
  // string into text, which would cost the row its write (a bound parameter stored U+FFFD for a
  // lone surrogate). The rare value with any `\u` escape is serialized again with its strings cleaned.
  return text.includes('\\u') ? JSON.stringify(value, cleanStrings) : text;
}

function cleanStrings(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? cleanText(value) : value;
}

/**
 * A `timestamptz` value in a row: ISO 8601 text (`isoTime`), not a Date, because JSON.stringify leaves its fast
 * path for every object with a `toJSON` (docs/decisions/hot-path.md, One JSON parameter per batch).
 */
export type Timestamp = string;

/**
 * A row of `Table` (a Kysely table type of store/tables.ts) as a batch writes it through
 * `json_populate_recordset`: every column present, those with a default too (a missing key would
 * be written as null), timestamps as `Timestamp` text, arrays as the call holds them. Derived, so
 * a column added to the table is a type error in every row builder until it is filled.
 */
export type RecordsetRow<Table> = {
  [Column in keyof Selectable<Table>]: RecordsetValue<Selectable<Table>[Column]>;
};

type RecordsetValue<T> = T extends Date ? Timestamp : T extends readonly (infer E)[] ? readonly E[] : T;
