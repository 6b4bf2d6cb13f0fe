import { sql } from 'kysely';
import { affectedRows, type Db, execute } from '../store/database.ts';
import { claimCycle, JOB_LOCK_IDS } from './job-lock.ts';
import { addDays, compactDate, parseCompactDate, utcDay } from './utc-days.ts';

const PARENT = 'request_logs';
const DEFAULT_PARTITION = 'request_logs_default';
const PARTITION_PREFIX = 'request_logs_p';
const JOB = 'request-log-partitions';

export interface PartitionJobOptions {
  db: Db;
  /** REQUEST_LOG_PARTITION_JOB_INTERVAL_MS: the cycle only one replica runs. */
  intervalMs: number;
  /** REQUEST_LOG_PARTITION_CREATE_DAYS: partitions created ahead of today. */
  createDays: number;
  /** REQUEST_LOG_PARTITION_RETENTION_DAYS: partitions of days before today minus this are dropped. */
  retentionDays: number;
  now?: () => Date;
}

export type PartitionRunResult =
  | { ran: false; reason: 'locked' | 'ran-this-cycle' }
  | {
      ran: true;
      /** Days moved out of DEFAULT into their own partition, with the rows moved. */
      drained: { partition: string; rows: number }[];
      /** Rows deleted from DEFAULT because their day is already past retention. */
      expiredFromDefault: number;
      created: string[];
      dropped: string[];
    };

export function partitionName(day: Date): string {
  return `${PARTITION_PREFIX}${compactDate(day)}`;
}

/**
 * Variant A's partition maintenance (SPEC.md, Request log records): (1) move rows out of DEFAULT
 * into their day's partition, doing nothing when DEFAULT is empty; (2) create today's partition
 * and `createDays` ahead; (3) drop partitions older than `retentionDays`. One transaction, claimed
 * per cycle across replicas (job-lock.ts); a failure rolls everything back for the next cycle.
 *
 * A day's partition cannot be created while DEFAULT holds rows of that day, and detaching DEFAULT
 * would stop the inserts meanwhile; so each day's rows are copied to a temporary table, deleted
 * from DEFAULT, and put back through the parent once the partition exists.
 */
export async function runPartitionMaintenance(
  options: PartitionJobOptions,
  force = false,
): Promise<PartitionRunResult> {
  const today = utcDay(options.now?.() ?? new Date());
  const cutoff = addDays(today, -options.retentionDays);
  return options.db.transaction().execute(async (tx): Promise<PartitionRunResult> => {
    if (!force) {
      const claim = await claimCycle(tx, JOB, JOB_LOCK_IDS.requestLogPartitions, options.intervalMs);
      if (!claim.claimed) return { ran: false, reason: claim.reason };
    }
    // Parent first, then DEFAULT: the order inserts take them in, so the two cannot deadlock.
    await execute(tx, `lock table only ${PARENT} in share row exclusive mode`);
    await execute(tx, `lock table ${DEFAULT_PARTITION} in share row exclusive mode`);
    const { drained, expired } = await drainDefault(tx, cutoff);
    const created: string[] = [];
    for (let offset = 0; offset <= options.createDays; offset += 1) {
      const day = addDays(today, offset);
      if (await createPartition(tx, day)) created.push(partitionName(day));
    }
    const dropped = await dropOldPartitions(tx, cutoff);
    return { ran: true, drained, expiredFromDefault: expired, created, dropped };
  });
}

async function drainDefault(
  tx: Db,
  cutoff: Date,
): Promise<{ drained: { partition: string; rows: number }[]; expired: number }> {
  const days = await sql<{ day: Date }>`
    select distinct date_trunc('day', created_at, 'UTC') as day from request_logs_default order by day`.execute(
    tx,
  );
  const drained: { partition: string; rows: number }[] = [];
  let expired = 0;
  for (const { day } of days.rows) {
    const next = addDays(day, 1);
    const ofTheDay = sql`created_at >= ${day} and created_at < ${next}`;
    if (day < cutoff) {
      expired += affectedRows(await sql`delete from request_logs_default where ${ofTheDay}`.execute(tx));
      continue;
    }
    await sql`create temp table request_logs_moving on commit drop as
      select * from request_logs_default where ${ofTheDay}`.execute(tx);
    await sql`delete from request_logs_default where ${ofTheDay}`.execute(tx);
    await createPartition(tx, day);
    const moved = await sql`insert into request_logs select * from request_logs_moving`.execute(tx);
    await execute(tx, 'drop table request_logs_moving');
    drained.push({ partition: partitionName(day), rows: affectedRows(moved) });
  }
  return { drained, expired };
}

/** Creates the day's partition unless it exists; true when it was created. */
async function createPartition(tx: Db, day: Date): Promise<boolean> {
  const name = partitionName(day);
  const existing = await sql<{ exists: boolean }>`select to_regclass(${name}) is not null as exists`.execute(
    tx,
  );
  if (existing.rows[0].exists) return false;
  // DDL takes no bind parameters; the name and bounds are made here from a Date, never from input.
  await execute(
    tx,
    `create table ${name} partition of ${PARENT}
       for values from ('${day.toISOString()}') to ('${addDays(day, 1).toISOString()}')`,
  );
  return true;
}

async function dropOldPartitions(tx: Db, cutoff: Date): Promise<string[]> {
  const children = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
     where i.inhparent = ${PARENT}::regclass`.execute(tx);
  const dropped: string[] = [];
  for (const { name } of children.rows) {
    if (!name.startsWith(PARTITION_PREFIX)) continue;
    const day = parseCompactDate(name.slice(PARTITION_PREFIX.length));
    if (day === null || day >= cutoff) continue;
    await execute(tx, `drop table if exists ${name}`);
    dropped.push(name);
  }
  return dropped.sort();
}
