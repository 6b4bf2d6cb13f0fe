import { sql } from 'kysely';
import type { Db } from '../store/database.ts';
import type { SpendDelta, SpendFlush } from './spend-writer.ts';

/**
 * One multi-row update per flush: every key's delta in one statement, one round trip, no
 * transaction held across calls. The deltas arrive as two arrays joined by `unnest` rather than a
 * `values` list, so the statement text is the same for any batch size (one prepared statement,
 * no parameter-count limit). Deltas are sorted by id, so flushes of several replicas lock rows in
 * the same order; a key deleted meanwhile matches no row and its delta is dropped.
 */
export function spendFlushFor(db: Db): SpendFlush {
  return async (deltas: readonly SpendDelta[]) => {
    if (deltas.length === 0) return;
    const ids = deltas.map((delta) => delta.keyId);
    // Strings, so numeric receives the double exactly as JavaScript prints it.
    const cents = deltas.map((delta) => String(delta.cents));
    await sql`
      update virtual_keys as k
      set spend_cents = k.spend_cents + v.delta
      from unnest(${ids}::text[], ${cents}::numeric[]) as v(id, delta)
      where k.id = v.id`.execute(db);
  };
}

/** A key's `spend_cents` as the database has it now; 0 for a key that no longer exists. */
export async function readSpendCents(db: Db, keyId: string): Promise<number> {
  const row = await db
    .selectFrom('virtual_keys')
    .select('spend_cents')
    .where('id', '=', keyId)
    .executeTakeFirst();
  return row === undefined ? 0 : Number(row.spend_cents);
}
