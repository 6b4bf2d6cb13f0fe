import { sql } from 'kysely';
import type { Db } from '../store/database.ts';
import type { LimitScope } from './limit-keys.ts';
import type { SpendDelta, SpendFlush } from './spend-writer.ts';

/** The tables whose rows have a budget and a spend: keys and teams. */
export type SpendTable = 'virtual_keys' | 'teams';

export function spendTableOf(scope: Pick<LimitScope, 'kind'>): SpendTable {
  return scope.kind === 'team' ? 'teams' : 'virtual_keys';
}

/**
 * One multi-row update per flush: every row's delta in one statement, one round trip, no
 * transaction held across calls. The deltas arrive as arrays joined by `unnest` rather than a
 * `values` list, so the statement text is the same for any batch size (one prepared statement,
 * no parameter-count limit). Deltas are sorted by id, so flushes of several replicas lock rows in
 * the same order; a row deleted meanwhile matches nothing and its delta is dropped.
 *
 * The batch is applied once whatever the number of tries: the statement claims `batchId` in
 * `spend_batches` (migration 0014) and adds nothing when another try already did, and prunes
 * claims older than an hour as it goes (a hundred at most, skipping rows another replica holds).
 *
 * The period's spend (migration 0009) follows the row's `period_start`: a delta of the same
 * window adds to it, one of a later window starts it afresh, one of an earlier window (a call
 * settled after the boundary) leaves it, since that period is over.
 */
export function spendFlushFor(db: Db, table: SpendTable = 'virtual_keys'): SpendFlush {
  return async (deltas: readonly SpendDelta[], batchId: string) => {
    if (deltas.length === 0) return;
    const ids = deltas.map((delta) => delta.keyId);
    // Strings, so numeric receives the double exactly as JavaScript prints it.
    const cents = deltas.map((delta) => String(delta.cents));
    const starts = deltas.map((delta) =>
      delta.period === undefined ? null : new Date(delta.period.startMs),
    );
    const periodCents = deltas.map((delta) => String(delta.period?.cents ?? 0));
    await sql`
      with claimed as (
        insert into spend_batches (id) values (${batchId}) on conflict (id) do nothing returning id
      ), pruned as (
        delete from spend_batches where id in (
          select id from spend_batches where applied_at < now() - interval '1 hour'
          order by applied_at limit 100 for update skip locked)
      )
      update ${sql.table(table)} as k
      set spend_cents = k.spend_cents + v.delta,
        period_spend_cents = case
          when v.period_start is null then k.period_spend_cents
          when k.period_start = v.period_start then k.period_spend_cents + v.period_delta
          when k.period_start is null or k.period_start < v.period_start then v.period_delta
          else k.period_spend_cents end,
        period_start = greatest(k.period_start, v.period_start)
      from unnest(${ids}::text[], ${cents}::numeric[], ${starts}::timestamptz[], ${periodCents}::numeric[])
        as v(id, delta, period_start, period_delta), claimed
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

/** The spend columns of a key or team row. */
export interface StoredSpend {
  spend_cents: number | string;
  period_start: Date | string | null;
  period_spend_cents: number | string;
}

/** The row's spend in the window starting at `periodStartMs`; null is the cumulative spend. */
export function windowSpendOf(row: StoredSpend, periodStartMs: number | null): number {
  if (periodStartMs === null) return Number(row.spend_cents);
  const stored = row.period_start === null ? null : new Date(row.period_start).getTime();
  return stored === periodStartMs ? Number(row.period_spend_cents) : 0;
}

/** A key's or team's spend in a budget window as the database has it now; 0 when the row is gone. */
export async function readWindowSpendCents(
  db: Db,
  scope: LimitScope,
  periodStartMs: number | null,
): Promise<number> {
  const row = await db
    .selectFrom(spendTableOf(scope))
    .select(['spend_cents', 'period_start', 'period_spend_cents'])
    .where('id', '=', scope.id)
    .executeTakeFirst();
  return row === undefined ? 0 : windowSpendOf(row, periodStartMs);
}

/**
 * Reset-spend (DESIGN.md section 5, Governance): a new budget window starts at `at`, with nothing
 * spent in it; `spend_cents` stays the cumulative total. `at` is the gateway's clock, to the
 * millisecond, so the window the hot path computes from `budget_reset_at` is this `period_start`
 * exactly. False when there is no such row.
 */
export async function startNewPeriod(db: Db, table: SpendTable, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ budget_reset_at: at, period_start: at, period_spend_cents: 0, updated_at: sql`now()` as never })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
