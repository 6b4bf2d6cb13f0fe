import type { Db } from '../store/database.ts';

/** The one row (id 1) of `router_settings`: the settings as JSON, or null when never saved. */
export class RouterSettingsRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async read(): Promise<unknown> {
    const row = await this.#db
      .selectFrom('router_settings')
      .select('settings')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row?.settings ?? null;
  }

  async write(settings: object): Promise<void> {
    const value = settings as Record<string, unknown>;
    await this.#db
      .insertInto('router_settings')
      .values({ id: 1, settings: value })
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet({ settings: value, updated_at: new Date() }),
      )
      .execute();
  }
}
