import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../store/database.ts';

/**
 * How `/admin/usage` groups calls. Each grouping is one SQL expression over `gateway_operations`
 * (aliased `o`); one that `expands` joins each operation to several rows (its tags), so its totals
 * are counted on the operations themselves.
 */
interface Grouping {
  expression: RawBuilder<string | null>;
  expands?: RawBuilder<unknown>;
}

const GROUPINGS = {
  key: { expression: sql`o.key_id` },
  model: { expression: sql`o.public_model` },
  deployment: { expression: sql`o.deployment_id` },
  day: { expression: sql`to_char(o.started_at at time zone 'UTC', 'YYYY-MM-DD')` },
  tag: { expression: sql`tag.tag`, expands: sql`left join unnest(o.tags) as tag(tag) on true` },
} as const satisfies Record<string, Grouping>;

export type UsageGroup = keyof typeof GROUPINGS;
export const USAGE_GROUPS = Object.keys(GROUPINGS) as [UsageGroup, ...UsageGroup[]];

export const USAGE_BUCKETS = ['hour', 'day'] as const;
export type UsageBucket = (typeof USAGE_BUCKETS)[number];

export interface UsageFilter {
  groupBy: UsageGroup;
  /** Inclusive lower bound of the start time. */
  from?: Date;
  /** Exclusive upper bound of the start time. */
  to?: Date;
  /** With a bucket, every figure also comes as a series of UTC hours or days. */
  bucket?: UsageBucket;
}

export interface UsageFigures {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costCents: number;
  /** Calls that ended in an error answer (`failure`) or died with their process (`abandoned`). */
  errors: number;
}

/** One bucket's figures; `start` is the bucket's first instant (RFC 3339, UTC). */
export type UsagePoint = UsageFigures & { start: string };

export type UsageSeries = UsageFigures & { series?: UsagePoint[] };

export interface UsageGroupRow extends UsageSeries {
  /**
   * Key id (null: the master key), public model, deployment id (null: never reached one), UTC day
   * `YYYY-MM-DD`, or tag (null: calls without tags).
   */
  group: string | null;
}

export interface UsageReport {
  totals: UsageSeries;
  /** Ordered by group. */
  data: UsageGroupRow[];
}

interface AggregateRow {
  group: string | null;
  bucket: string | null;
  /** Bits: GROUP_ROLLUP when the row sums over every group, BUCKET_ROLLUP over every bucket (or there are none). */
  rollup: number;
  requests: string;
  input_tokens: string;
  output_tokens: string;
  cached_input_tokens: string;
  cost_cents: string;
  errors: string;
}

const GROUP_ROLLUP = 1;
const BUCKET_ROLLUP = 2;

/**
 * `GET /admin/usage`: per group, and in total, the figures of the retained operations, each also
 * per bucket when asked. One scan: the groups, their buckets and the totals are grouping sets of
 * one statement, summed by Postgres (cost stays exact `numeric`); a grouping that expands rows
 * takes a second statement for its totals, so a call with two tags counts once in them.
 */
export async function queryUsage(db: Db, filter: UsageFilter): Promise<UsageReport> {
  const grouping: Grouping = GROUPINGS[filter.groupBy];
  const rows =
    grouping.expands === undefined
      ? await aggregate(db, filter, grouping, true)
      : [
          ...(await aggregate(db, filter, grouping, false)),
          ...(await aggregate(db, filter, { expression: sql`null::text` }, true, true)),
        ];
  return assemble(rows, filter.bucket !== undefined);
}

async function aggregate(
  db: Db,
  filter: UsageFilter,
  grouping: Grouping,
  withTotals: boolean,
  totalsOnly = false,
): Promise<AggregateRow[]> {
  const group = grouping.expression;
  // A literal, not a parameter: each mention of a parameter is a new one ($1, $2...), and Postgres
  // would not see the grouping-set, select and grouping() mentions as one expression.
  const bucket =
    filter.bucket === undefined
      ? null
      : sql`date_trunc(${sql.lit(filter.bucket)}, o.started_at at time zone 'UTC')`;
  const sets: RawBuilder<unknown>[] = [];
  if (!totalsOnly) sets.push(bucket === null ? sql`(${group})` : sql`(${group}, ${bucket}), (${group})`);
  if (withTotals) sets.push(bucket === null ? sql`()` : sql`(${bucket}), ()`);
  const bucketText =
    bucket === null ? sql`null::text` : sql`to_char(${bucket}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const groupBit = totalsOnly ? sql.lit(GROUP_ROLLUP) : sql`grouping(${group})`;
  const bucketBit =
    bucket === null ? sql.lit(BUCKET_ROLLUP) : sql`grouping(${bucket}) * ${sql.lit(BUCKET_ROLLUP)}`;
  const conditions: RawBuilder<unknown>[] = [sql`true`];
  if (filter.from !== undefined) conditions.push(sql`o.started_at >= ${filter.from}`);
  if (filter.to !== undefined) conditions.push(sql`o.started_at < ${filter.to}`);
  const result = await sql<AggregateRow>`
    select ${group} as "group", ${bucketText} as bucket,
           ${groupBit} | ${bucketBit} as rollup,
           count(*) as requests,
           coalesce(sum(o.input_tokens), 0) as input_tokens,
           coalesce(sum(o.output_tokens), 0) as output_tokens,
           coalesce(sum(o.cached_input_tokens), 0) as cached_input_tokens,
           coalesce(sum(o.cost_cents), 0) as cost_cents,
           count(*) filter (where o.status in ('failure', 'abandoned')) as errors
      from gateway_operations o ${grouping.expands ?? sql``}
     where ${sql.join(conditions, sql` and `)}
     group by grouping sets (${sql.join(sets)})
     order by 1, 2`.execute(db);
  return result.rows;
}

function figuresOf(row: AggregateRow): UsageFigures {
  return {
    requests: Number(row.requests),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cachedInputTokens: Number(row.cached_input_tokens),
    costCents: Number(row.cost_cents),
    errors: Number(row.errors),
  };
}

const NO_CALLS: UsageFigures = Object.freeze({
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  costCents: 0,
  errors: 0,
});

/** Rows ordered by group then bucket -> one entry per group, its series in bucket order. */
function assemble(rows: readonly AggregateRow[], bucketed: boolean): UsageReport {
  const groups = new Map<string | null, UsageGroupRow>();
  const totals: UsageSeries = bucketed ? { ...NO_CALLS, series: [] } : { ...NO_CALLS };
  const entryOf = (group: string | null) => {
    let entry = groups.get(group);
    if (entry === undefined) {
      entry = bucketed ? { group, ...NO_CALLS, series: [] } : { group, ...NO_CALLS };
      groups.set(group, entry);
    }
    return entry;
  };
  for (const row of rows) {
    const rollup = Number(row.rollup);
    const target = rollup & GROUP_ROLLUP ? totals : entryOf(row.group);
    if (rollup & BUCKET_ROLLUP) Object.assign(target, figuresOf(row));
    else target.series?.push({ start: row.bucket ?? '', ...figuresOf(row) });
  }
  return { totals, data: [...groups.values()] };
}
