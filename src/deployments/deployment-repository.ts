import { randomBytes } from 'node:crypto';
import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../store/database.ts';
import { inTransaction } from '../store/in-transaction.ts';
import type { DeploymentsTable } from '../store/tables.ts';
import type { DeploymentRow } from './deployment.ts';

export type DeploymentInsert = Omit<Insertable<DeploymentsTable>, 'id' | 'created_at' | 'updated_at'>;
export type DeploymentUpdate = Omit<Updateable<DeploymentsTable>, 'id' | 'created_at' | 'updated_at'>;

/** The database clock; typed loosely because `Generated<Timestamp>` nests two ColumnTypes (store/tables.ts). */
const NOW = sql`now()` as never;

/**
 * `dep_` + creation time (base36, fixed width) + 64 random bits: ids sort by creation, so a list
 * paginated by id is a stable, chronological keyset walk.
 */
export function newDeploymentId(nowMs = Date.now()): string {
  return `dep_${nowMs.toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;
}

/** The `deployments` table: plain reads and writes, no rules (those live in DeploymentAdmin). */
export class DeploymentRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(values: DeploymentInsert): Promise<DeploymentRow> {
    return this.#db
      .insertInto('deployments')
      .values({ ...values, id: newDeploymentId() })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  find(id: string): Promise<DeploymentRow | undefined> {
    return this.#db.selectFrom('deployments').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Up to `limit + 1` rows after `afterId`, in id order (the extra row says another page exists). */
  list(page: { limit: number; afterId: string | null }): Promise<DeploymentRow[]> {
    let query = this.#db
      .selectFrom('deployments')
      .selectAll()
      .orderBy('id')
      .limit(page.limit + 1);
    if (page.afterId !== null) query = query.where('id', '>', page.afterId);
    return query.execute();
  }

  /**
   * Read-modify-write under a row lock, so two concurrent PATCHes of different fields both land
   * and `encryption:rotate` (which skips locked rows) never races a credential change.
   * `change` sees the current row and returns the columns to write; undefined when there is no such row.
   */
  update(id: string, change: (row: DeploymentRow) => DeploymentUpdate): Promise<DeploymentRow | undefined> {
    return inTransaction(this.#db, async (trx) => {
      const row = await trx
        .selectFrom('deployments')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return trx
        .updateTable('deployments')
        .set({ ...change(row), updated_at: NOW })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('deployments').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
