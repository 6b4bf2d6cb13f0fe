import type { Selectable } from 'kysely';
import { cleanText } from './prompt.ts';

/**
 * A batch of rows as the one JSON parameter of an `INSERT … SELECT`: one parameter per statement
 * instead of one per row and column, a statement text that does not change with the batch size
 * (so it is prepared once per connection), and `JSON.stringify` doing the serialization natively;
 * serializing rows as parameters cost far more (docs/decisions/hot-path.md). Each row is the array
 * of its values (`valuesReader`, read by `positionalRows`) or, for a payload sample, an object
 * whose fields are named after its columns (read by `json_populate_recordset`).
 */
export function recordsetJson(rows: readonly object[]): string {
  return cleanJson(rows);
}

/**
 * One row's JSON as the array of its values (`valuesReader`), cleaned as `recordsetJson` cleans a
 * batch, for a row serialized when it is made rather than with its batch; held-rows.ts
 * `recordsetBytes` joins such rows into the parameter, which `positionalRows` reads. An array,
 * not the row object: JSON.stringify writes an object's keys with every row, most of a row's cost
 * (docs/decisions/hot-path.md, Record rows written as arrays).
 */
export function rowJson(values: readonly unknown[]): string {
  return cleanJson(values);
}

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * A reader of a row's values in `columns` order, made once per table as a function of one named
 * property load per column: a loop reading each column by a computed key went through V8's
 * megamorphic property cache and gave back much of what the arrays saved (hot-path.md, as
 * above). The names are the table's own constants, checked to be plain identifiers.
 */
export function valuesReader<Row extends object>(
  columns: readonly (keyof Row & string)[],
): (row: Row) => unknown[] {
  for (const column of columns) {
    if (!COLUMN_NAME.test(column)) throw new TypeError(`not a plain column name: ${column}`);
  }
  return new Function('row', `return [${columns.map((column) => `row.${column}`).join(', ')}];`) as (
    row: Row,
  ) => unknown[];
}

/** The Postgres type of a column a positional row carries: what its value is cast to. */
export type ColumnType = 'text' | 'integer' | 'numeric' | 'boolean' | 'timestamptz' | 'jsonb' | 'text[]';

/** The column names of a `{ column: type }` table, in its order. */
export function columnsOf<Column extends string>(types: Readonly<Record<Column, ColumnType>>): Column[] {
  return Object.keys(types) as Column[];
}

/** Value `index` of the row as `type`, with a JSON null as NULL, as `json_populate_record` reads it. */
function castValue(index: number, type: ColumnType): string {
  if (type === 'jsonb') return `nullif(row_values->${index}, 'null'::jsonb)`;
  if (type === 'text[]') {
    return `case when jsonb_typeof(row_values->${index}) = 'array' then array(select jsonb_array_elements_text(row_values->${index})) end`;
  }
  return `(row_values->>${index})::${type}`;
}

/**
 * `select <each column cast from its value> from <the rowJson arrays of parameter $n>`: the rows'
 * columns in `types`' order. The parameter is read as `jsonb` and each value cast to its column's
 * type: Postgres reads a batch of arrays this way faster than `json_populate_recordset` read the
 * same rows as objects, where building each row's object for `json_populate_record` was far
 * slower (docs/decisions/hot-path.md, Record rows written as arrays).
 */
export function positionalRows(types: Readonly<Record<string, ColumnType>>, parameter: number): string {
  const casts = Object.entries(types).map(([, type], index) => castValue(index, type));
  return `select ${casts.join(', ')} from jsonb_array_elements($${parameter}::text::jsonb) as batch(row_values)`;
}

/** `insert into <table> (<columns>) <positionalRows of parameter $n>`, the columns in `types`' order. */
export function insertPositionalRows(
  table: string,
  types: Readonly<Record<string, ColumnType>>,
  parameter: number,
): string {
  return `insert into ${table} (${columnsOf(types).join(', ')})
    ${positionalRows(types, parameter)}`;
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
