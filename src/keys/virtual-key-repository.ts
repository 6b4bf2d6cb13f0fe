import { randomBytes } from 'node:crypto';
import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../store/database.ts';
import type { VirtualKeysTable } from '../store/tables.ts';
import type { TeamRow, VirtualKeyRow } from './virtual-key-row.ts';

/** Columns only rotation writes. */
type SecretColumns = 'key_hash' | 'previous_key_hash' | 'previous_key_expires_at';

export type VirtualKeyInsert = Omit<
  Insertable<VirtualKeysTable>,
  'id' | 'spend_cents' | 'created_at' | 'updated_at' | 'previous_key_hash' | 'previous_key_expires_at'
>;
export type VirtualKeyUpdate = Omit<
  Updateable<VirtualKeysTable>,
  'id' | SecretColumns | 'spend_cents' | 'created_at' | 'updated_at'
>;

/** The database clock; typed loosely because `Generated<Timestamp>` nests two ColumnTypes (store/tables.ts). */
const NOW = sql`now()` as never;

/** `key_` + creation time (base36, fixed width) + 64 random bits: ids sort by creation for keyset pages. */
export function newVirtualKeyId(nowMs = Date.now()): string {
  return `key_${nowMs.toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;
}

/** A key's team: its scope and limits apply to the key's calls too. */
export function findKeyTeam(db: Db, teamId: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').selectAll().where('id', '=', teamId).executeTakeFirst();
}

/** The `virtual_keys` table: plain reads and writes. `spend_cents` is written only by billing. */
export class VirtualKeyRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(values: VirtualKeyInsert): Promise<VirtualKeyRow> {
    return this.#db
      .insertInto('virtual_keys')
      .values({ ...values, id: newVirtualKeyId() })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  find(id: string): Promise<VirtualKeyRow | undefined> {
    return this.#db.selectFrom('virtual_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Up to `limit + 1` rows after `afterId`, in id order (the extra row says another page exists). */
  list(page: { limit: number; afterId: string | null }): Promise<VirtualKeyRow[]> {
    let query = this.#db
      .selectFrom('virtual_keys')
      .selectAll()
      .orderBy('id')
      .limit(page.limit + 1);
    if (page.afterId !== null) query = query.where('id', '>', page.afterId);
    return query.execute();
  }

  update(id: string, values: VirtualKeyUpdate): Promise<VirtualKeyRow | undefined> {
    return this.#db
      .updateTable('virtual_keys')
      .set({ ...values, updated_at: NOW })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Replaces the secret's hash in one statement. With a grace period (`previousUntil`), the hash
   * it replaces is kept until then; without one, nothing of it is (an earlier grace ends too).
   */
  rotate(id: string, keyHash: Buffer, previousUntil: Date | null): Promise<VirtualKeyRow | undefined> {
    return this.#db
      .updateTable('virtual_keys')
      .set((eb) => ({
        key_hash: keyHash,
        previous_key_hash: previousUntil === null ? null : eb.ref('key_hash'),
        previous_key_expires_at: previousUntil,
        updated_at: NOW,
      }))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('virtual_keys').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
