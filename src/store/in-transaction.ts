import type { Db } from './database.ts';

/**
 * Runs `work` in a transaction: the caller's, when `db` already is one (an `apply` writes every
 * change of a file in one), else a new one. Kysely refuses to nest `transaction()`.
 */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
