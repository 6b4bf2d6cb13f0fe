import { type RawBuilder, sql } from 'kysely';
import { JOB_LOCK_IDS } from '../jobs/job-lock.ts';
import type { Db } from '../store/database.ts';

export interface UsageRollupOptions {
  db: Db;
  /**
   * How old an hour's end must be before it is rolled up: past the longest a call can stay
   * `in_progress` (the reconcile job's stale bound) and a flush, no record of it changes after.
   */
  settleMs: number;
  /** Rolled-up hours older than the records' retention are deleted with them. */
  retentionDays: number;
  /** Most hours rolled up per run, so a first run over a long history stays bounded. */
  maxHours?: number;
  now?: () => Date;
}

export interface UsageRollupResult {
  /** The hours rolled up in this run: [from, to). Absent when nothing was due. */
  from?: string;
  to?: string;
  rows: number;
  expired: number;
}

const HOUR_MS = 3_600_000;

/** Each dimension of migration 0012: its name, the value a call has along it, and the join that yields it. */
const DIMENSIONS: ReadonlyArray<[string, RawBuilder<unknown>, RawBuilder<unknown>]> = [
  ['key', sql`o.key_id`, sql``],
  ['team', sql`o.team_id`, sql``],
  ['model', sql`o.public_model`, sql``],
  ['deployment', sql`o.deployment_id`, sql``],
  // One row per tag, and the untagged calls under null, as the report groups them.
  ['tag', sql`tag.tag`, sql`left join unnest(o.tags) as tag(tag) on true`],
  ['all', sql`null::text`, sql``],
];
/** A week of hours per run: a first run over 10M records does it in a few runs, each bounded. */
const DEFAULT_MAX_HOURS = 168;

/**
 * Rolls the settled hours of `gateway_operations` up into `usage_hourly` (migration 0012): per UTC
 * hour, one row per key, team, model, deployment and tag, and one for all calls, with the figures
 * `/admin/usage` sums. It
 * continues from `usage_rollup_state.rolled_through` (from the first record's hour the first
 * time), replaces what those hours held (so a run repeated after a failure adds nothing twice),
 * and moves the mark on, in one transaction under an advisory lock.
 */
export async function rollUpUsage(options: UsageRollupOptions): Promise<UsageRollupResult> {
  const now = options.now?.() ?? new Date();
  const settled = new Date(Math.floor((now.getTime() - options.settleMs) / HOUR_MS) * HOUR_MS);
  const cutoff = new Date(now.getTime() - options.retentionDays * 86_400_000);
  return options.db.transaction().execute(async (tx) => {
    // Waited for, not tried: replicas starting together all run it, one after the other, and
    // the later ones find the mark moved on (two at once would insert the same hours twice).
    await sql`select pg_advisory_xact_lock(${JOB_LOCK_IDS.usageRollup.toString()}::bigint)`.execute(tx);
    const expired = await sql`delete from usage_hourly where started_at < ${cutoff}`.execute(tx);
    const start = await rollupStart(tx);
    const result: UsageRollupResult = { rows: 0, expired: Number(expired.numAffectedRows ?? 0) };
    if (start === null || start >= settled) return result;
    const maxHours = options.maxHours ?? DEFAULT_MAX_HOURS;
    const end = new Date(Math.min(settled.getTime(), start.getTime() + maxHours * HOUR_MS));
    await sql`delete from usage_hourly where started_at >= ${start} and started_at < ${end}`.execute(tx);
    let rows = 0;
    for (const [dimension, value, join] of DIMENSIONS) {
      const inserted = await sql`insert into usage_hourly
          (dimension, value, started_at, requests, input_tokens, output_tokens, cached_input_tokens,
           cost_cents, errors)
        select ${dimension}, ${value}, date_trunc('hour', o.started_at, 'UTC'), count(*),
               sum(o.input_tokens), sum(o.output_tokens), sum(o.cached_input_tokens),
               sum(o.cost_cents), count(*) filter (where o.status in ('failure', 'abandoned'))
          from gateway_operations o ${join}
         where o.started_at >= ${start} and o.started_at < ${end}
         group by 2, 3`.execute(tx);
      rows += Number(inserted.numAffectedRows ?? 0);
    }
    await sql`insert into usage_rollup_state (only_row, rolled_through) values (true, ${end})
      on conflict (only_row) do update set rolled_through = excluded.rolled_through`.execute(tx);
    return {
      ...result,
      from: start.toISOString(),
      to: end.toISOString(),
      rows,
    };
  });
}

/** Where the next run starts: the mark, or the first record's hour; null without records. */
async function rollupStart(tx: Db): Promise<Date | null> {
  const state = await sql<{ at: Date }>`select rolled_through as at from usage_rollup_state`.execute(tx);
  if (state.rows.length > 0) return state.rows[0].at;
  const first = await sql<{ at: Date | null }>`
    select date_trunc('hour', min(started_at), 'UTC') as at from gateway_operations`.execute(tx);
  return first.rows[0].at;
}
