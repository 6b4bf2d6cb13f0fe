import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from '../store/database.ts';
import { inTransaction } from '../store/in-transaction.ts';
import type { ExtensionsTable } from '../store/tables.ts';

export type ExtensionRow = Selectable<ExtensionsTable>;
export type ExtensionInsert = Omit<Insertable<ExtensionsTable>, 'created_at' | 'updated_at'>;
export type ExtensionUpdate = Omit<Updateable<ExtensionsTable>, 'id' | 'created_at' | 'updated_at'>;

/** The database clock; typed loosely because `Generated<Timestamp>` nests two ColumnTypes (store/tables.ts). */
const NOW = sql`now()` as never;

/** The `extensions` table (variant B): plain reads and writes, no rules (those live in ExtensionAdmin). */
export class ExtensionRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Undefined when the id is taken. */
  async insert(values: ExtensionInsert): Promise<ExtensionRow | undefined> {
    return this.#db
      .insertInto('extensions')
      .values(values)
      .onConflict((conflict) => conflict.column('id').doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  all(): Promise<ExtensionRow[]> {
    return this.#db.selectFrom('extensions').selectAll().orderBy('id').execute();
  }

  find(id: string): Promise<ExtensionRow | undefined> {
    return this.#db.selectFrom('extensions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Read-modify-write under a row lock, so two concurrent PATCHes both land and `encryption:rotate`
   * (which skips locked rows) never races a source change. Undefined when there is no such row.
   */
  update(
    id: string,
    change: (row: ExtensionRow) => Promise<ExtensionUpdate> | ExtensionUpdate,
  ): Promise<ExtensionRow | undefined> {
    return inTransaction(this.#db, async (trx) => {
      const row = await trx
        .selectFrom('extensions')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return trx
        .updateTable('extensions')
        .set({ ...(await change(row)), updated_at: NOW })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('extensions').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
