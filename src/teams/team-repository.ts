import { randomBytes } from 'node:crypto';
import { type Insertable, sql, type Updateable } from 'kysely';
import type { TeamRow } from '../keys/virtual-key-row.ts';
import type { Db } from '../store/database.ts';
import type { TeamsTable } from '../store/tables.ts';

/** Columns only billing and reset-spend write. */
type SpendColumns = 'spend_cents' | 'period_start' | 'period_spend_cents' | 'budget_reset_at';

export type TeamInsert = Omit<Insertable<TeamsTable>, 'id' | SpendColumns | 'created_at' | 'updated_at'>;
export type TeamUpdate = Omit<Updateable<TeamsTable>, 'id' | SpendColumns | 'created_at' | 'updated_at'>;

/** The database clock; typed loosely because `Generated<Timestamp>` nests two ColumnTypes (store/tables.ts). */
const NOW = sql`now()` as never;

/** `team_` + creation time (base36, fixed width) + 64 random bits: ids sort by creation for keyset pages. */
function newTeamId(nowMs = Date.now()): string {
  return `team_${nowMs.toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;
}

/** The `teams` table. */
export class TeamRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(values: TeamInsert): Promise<TeamRow> {
    return this.#db
      .insertInto('teams')
      .values({ ...values, id: newTeamId() })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  find(id: string): Promise<TeamRow | undefined> {
    return this.#db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(page: { limit: number; afterId: string | null }): Promise<TeamRow[]> {
    let query = this.#db
      .selectFrom('teams')
      .selectAll()
      .orderBy('id')
      .limit(page.limit + 1);
    if (page.afterId !== null) query = query.where('id', '>', page.afterId);
    return query.execute();
  }

  update(id: string, values: TeamUpdate): Promise<TeamRow | undefined> {
    return this.#db
      .updateTable('teams')
      .set({ ...values, updated_at: NOW })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes the team; a team its keys still name breaks the foreign key (the caller says 409). */
  async delete(id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('teams').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Disables the team's keys, takes them out of it and deletes it, in one transaction; the ids of the keys. */
  async deleteDisablingKeys(id: string): Promise<{ deleted: boolean; keyIds: string[] }> {
    return this.#db.transaction().execute(async (trx) => {
      const keys = await trx
        .updateTable('virtual_keys')
        .set({ enabled: false, team_id: null, updated_at: NOW })
        .where('team_id', '=', id)
        .returning('id')
        .execute();
      const result = await trx.deleteFrom('teams').where('id', '=', id).executeTakeFirst();
      return { deleted: result.numDeletedRows > 0n, keyIds: keys.map((key) => key.id) };
    });
  }
}
