import { sql as kyselySql } from 'kysely';
import { type Db, execute, openDatabase } from '../../src/store/database.ts';

/** Rows of a statement, with how many an insert, update or delete changed. */
export type Rows<T> = T[] & { count: number };

// Tests read arbitrary columns without declaring each row's type.
// biome-ignore lint/suspicious/noExplicitAny: a test's ad-hoc rows
type AnyRow = Record<string, any>;

/**
 * Tagged-template SQL for tests, on Kysely and the gateway's own pg pool: `` await sql`select ...` ``
 * gives the rows, values become bind parameters. `begin` runs a transaction, `end` closes the pool.
 */
export interface TestSql {
  <T = AnyRow>(strings: TemplateStringsArray, ...values: unknown[]): Promise<Rows<T>>;
  /** A statement as text with `$n` parameters (DDL, identifiers built by the test). */
  unsafe<T = AnyRow>(text: string, parameters?: readonly unknown[]): Promise<Rows<T>>;
  begin<T>(work: (tx: TestSql) => Promise<T>): Promise<T>;
  end(): Promise<void>;
  readonly db: Db;
}

/** SQL on an open Kysely instance (a test gateway's database, or a transaction). */
export function sqlOn(db: Db, end: () => Promise<void> = async () => {}): TestSql {
  const rows = <T>(result: { rows: T[]; numAffectedRows?: bigint }): Rows<T> =>
    Object.assign([...result.rows], { count: Number(result.numAffectedRows ?? result.rows.length) });
  const tag = async <T>(strings: TemplateStringsArray, ...values: unknown[]) =>
    rows<T>(await kyselySql<T>(strings, ...values).execute(db));
  return Object.assign(tag, {
    unsafe: async <T>(text: string, parameters: readonly unknown[] = []) =>
      rows<T>(await execute<T>(db, text, parameters)),
    begin: <T>(work: (tx: TestSql) => Promise<T>) => db.transaction().execute((tx) => work(sqlOn(tx))),
    end,
    db,
  }) as TestSql;
}

/** SQL on a pool of its own to the database at `url`. */
export function connectSql(url: string, poolMax = 2): TestSql {
  const database = openDatabase({ url, poolMax, timeoutMs: 10_000 });
  return sqlOn(database.background, () => database.close());
}
