import { sql } from 'kysely';
import { affectedRows, type Db } from '../store/database.ts';

/**
 * How long past its start an `in_progress` record must be before it counts as abandoned: longer
 * than a call runs with the default router settings (MAX_CALL_MS), plus slack for clocks and the
 * record queue's flush. A call that outlives the bound (settings raised above the defaults)
 * is marked, and its finalization, which upserts the real outcome, puts it right when it ends.
 */
export const RECONCILE_SLACK_MS = 10 * 60_000;
/** Default `timeouts.totalMs` (10 minutes) times default `retries.maxAttempts` (2). */
export const MAX_CALL_MS = 20 * 60_000;
export const RECONCILE_BATCH_ROWS = 500;
export const RECONCILE_MAX_BATCHES_PER_RUN = 100;

export interface ReconcileJobOptions {
  db: Db;
  /** Default RECONCILE_SLACK_MS + MAX_CALL_MS (30 minutes). */
  staleAfterMs?: number;
  batchRows?: number;
}

export interface ReconcileRunResult {
  operations: number;
  attempts: number;
}

/**
 * Marks operations and attempts a crashed process left `in_progress` as `abandoned` (DESIGN.md
 * section 2, variant B: stale operation reconcile). Claimed in bounded batches with `FOR UPDATE
 * SKIP LOCKED`; the update re-checks the state, so a replica racing it, or a late finalization,
 * is never overwritten (a finalization that lands later still wins: it upserts the real outcome).
 */
export async function runReconcile(options: ReconcileJobOptions): Promise<ReconcileRunResult> {
  const staleSeconds = (options.staleAfterMs ?? RECONCILE_SLACK_MS + MAX_CALL_MS) / 1000;
  const batchRows = options.batchRows ?? RECONCILE_BATCH_ROWS;
  const operations = await inBatches(batchRows, () =>
    sql`update gateway_operations set status = 'abandoned', finished_at = now()
      where status = 'in_progress' and id in (
        select id from gateway_operations
         where status = 'in_progress' and started_at < now() - make_interval(secs => ${staleSeconds})
         order by started_at
         limit ${batchRows}
           for update skip locked)`
      .execute(options.db)
      .then(affectedRows),
  );
  const attempts = await inBatches(batchRows, () =>
    sql`update upstream_attempts set outcome = 'abandoned'
      where outcome = 'in_progress' and (operation_id, attempt_index) in (
        select operation_id, attempt_index from upstream_attempts
         where outcome = 'in_progress' and started_at < now() - make_interval(secs => ${staleSeconds})
         order by started_at
         limit ${batchRows}
           for update skip locked)`
      .execute(options.db)
      .then(affectedRows),
  );
  return { operations, attempts };
}

async function inBatches(batchRows: number, batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < RECONCILE_MAX_BATCHES_PER_RUN; i += 1) {
    const count = await batch();
    total += count;
    if (count < batchRows) break;
  }
  return total;
}
