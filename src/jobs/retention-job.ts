import { affectedRows, type Db, execute } from '../store/database.ts';

/**
 * Rows deleted per claimed batch, and batches per run at most: a run never holds many locks or one
 * long transaction, and a large backlog is worked off over several runs.
 */
export const RETENTION_BATCH_ROWS = 1_000;
export const RETENTION_MAX_BATCHES_PER_RUN = 200;

export interface RetentionJobOptions {
  db: Db;
  /** OBSERVABILITY_METADATA_RETENTION_DAYS: gateway_operations and upstream_attempts. */
  metadataRetentionDays: number;
  /** OBSERVABILITY_PAYLOAD_RETENTION_DAYS: payload_samples. */
  payloadRetentionDays: number;
  batchRows?: number;
}

export interface RetentionRunResult {
  operations: number;
  attempts: number;
  samples: number;
}

/**
 * One table's expiry: the rows older than `days` by `column`, claimed by the key columns. A column
 * holding each row's own expiry instant is `days: 0`.
 */
export interface Expiry {
  table: 'gateway_operations' | 'upstream_attempts' | 'payload_samples' | 'audit_events' | 'response_states';
  key: string;
  column: string;
  days: number;
}

/**
 * Variant B's retention (SPEC.md, Request log records; cross-cutting rule 4): each batch claims due
 * rows with `FOR UPDATE SKIP LOCKED` and deletes them in the same statement, so replicas running
 * it together split the work instead of waiting on each other, and a repeated delete finds
 * nothing (idempotent). Times come from the database clock, shared by every replica.
 */
export async function runRetention(options: RetentionJobOptions): Promise<RetentionRunResult> {
  const expiries: Expiry[] = [
    { table: 'gateway_operations', key: 'id', column: 'started_at', days: options.metadataRetentionDays },
    {
      table: 'upstream_attempts',
      key: 'operation_id, attempt_index',
      column: 'started_at',
      days: options.metadataRetentionDays,
    },
    { table: 'payload_samples', key: 'id', column: 'created_at', days: options.payloadRetentionDays },
  ];
  const [operations, attempts, samples] = [
    await expire(options.db, expiries[0], options.batchRows),
    await expire(options.db, expiries[1], options.batchRows),
    await expire(options.db, expiries[2], options.batchRows),
  ];
  return { operations, attempts, samples };
}

/** Deletes one table's expired rows in claimed batches; returns how many. */
export async function expire(db: Db, expiry: Expiry, batchRows = RETENTION_BATCH_ROWS): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < RETENTION_MAX_BATCHES_PER_RUN; batch += 1) {
    const count = await expireBatch(db, expiry, batchRows);
    total += count;
    if (count < batchRows) break;
  }
  return total;
}

/** Claims and deletes at most `batchRows` expired rows of one table in one statement; returns how many. */
export async function expireBatch(db: Db, expiry: Expiry, batchRows: number): Promise<number> {
  // Identifiers are the constants above, never input.
  const statement = `delete from ${expiry.table} where (${expiry.key}) in (
      select ${expiry.key} from ${expiry.table}
       where ${expiry.column} < now() - make_interval(days => $1)
       order by ${expiry.column}
       limit $2
         for update skip locked)`;
  return affectedRows(await execute(db, statement, [expiry.days, batchRows]));
}
