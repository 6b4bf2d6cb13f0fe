import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../store/database.ts';

/**
 * How `/admin/usage` groups calls. The records are first summed per `cell` (an expression over
 * `gateway_operations o`) and bucket; `group` then names the group of a cell (over `cells c`). A
 * grouping that `expands` joins each cell to several groups (its tags): its totals are summed over
 * the cells themselves, so a call with two tags counts once in them.
 */
interface Grouping {
  cell: RawBuilder<unknown>;
  group: RawBuilder<string | null>;
  expands?: RawBuilder<unknown>;
  /** Its rows of the hourly rollups (migration 0012), and the cell over `usage_hourly o`. */
  rolled: { dimension: string; cell: RawBuilder<unknown> };
}

const ROLLED_VALUE = { cell: sql`o.value` };

const DAY_CELL = sql`date_trunc('day', o.started_at at time zone 'UTC')`;

const GROUPINGS = {
  key: { cell: sql`o.key_id`, group: sql`c.cell`, rolled: { dimension: 'key', ...ROLLED_VALUE } },
  model: { cell: sql`o.public_model`, group: sql`c.cell`, rolled: { dimension: 'model', ...ROLLED_VALUE } },
  deployment: {
    cell: sql`o.deployment_id`,
    group: sql`c.cell`,
    rolled: { dimension: 'deployment', ...ROLLED_VALUE },
  },
  day: {
    cell: DAY_CELL,
    group: sql`to_char(c.cell, 'YYYY-MM-DD')`,
    rolled: { dimension: 'all', cell: DAY_CELL },
  },
  tag: {
    cell: sql`o.tags`,
    group: sql`tag.tag`,
    expands: sql`left join unnest(c.cell) as tag(tag) on true`,
    // One row per tag: a one-tag set, or the empty set for the untagged calls' row.
    rolled: {
      dimension: 'tag',
      cell: sql`case when o.value is null then '{}'::text[] else array[o.value] end`,
    },
  },
  team: { cell: sql`o.team_id`, group: sql`c.cell`, rolled: { dimension: 'team', ...ROLLED_VALUE } },
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
   * `YYYY-MM-DD`, tag (null: calls without tags) or team id (null: calls by keys without a team).
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
 * per bucket when asked: the rollups' mark, then one statement, one pass over the hourly rollups
 * and the records outside them (cellsQuery). The pass is a plain GROUP BY per cell and bucket,
 * which Postgres runs in parallel (grouping sets it does not); the
 * groups, their bucket rollups and the totals are then grouping sets over those few cells,
 * summed by Postgres, so cost stays exact `numeric`.
 */
export async function queryUsage(db: Db, filter: UsageFilter): Promise<UsageReport> {
  const cells = cellsQuery(filter, await rolledThrough(db));
  const rows = await sql<AggregateRow>`${cells} ${rollupsQuery(filter)} order by 1, 2`.execute(db);
  return assemble(rows.rows, filter.bucket !== undefined);
}

const HOUR_MS = 3_600_000;

/** What one cell sums, from the records (one row per call) or from the hourly rollups. */
const FIGURES = {
  records: sql`count(*) as requests,
           sum(o.input_tokens) as input_tokens,
           sum(o.output_tokens) as output_tokens,
           sum(o.cached_input_tokens) as cached_input_tokens,
           sum(o.cost_cents) as cost_cents,
           count(*) filter (where o.status in ('failure', 'abandoned')) as errors`,
  rollups: sql`sum(o.requests) as requests,
           sum(o.input_tokens) as input_tokens,
           sum(o.output_tokens) as output_tokens,
           sum(o.cached_input_tokens) as cached_input_tokens,
           sum(o.cost_cents) as cost_cents,
           sum(o.errors) as errors`,
};

/**
 * `with cells as (...)`: the range summed per cell and bucket (null without a bucket). Its whole
 * UTC hours up to the rollups' mark come from `usage_hourly` (src/records/usage-rollup.ts: per
 * hour, one row per value of the grouping's dimension), the rest (the range's ragged ends, the
 * hours not yet rolled up) from the records; the parts may repeat a cell, which the grouping sets
 * sum. `in_groups` and `in_totals` say what a cell counts in: all of them count in both, but for
 * the hours rolled up by tag, the tag rows count in the groups and the `all` rows in the totals.
 */
function cellsQuery(filter: UsageFilter, rolledThrough: Date | null): RawBuilder<unknown> {
  const { cell, rolled: dimension, expands }: Grouping = GROUPINGS[filter.groupBy];
  const bucket =
    filter.bucket === undefined
      ? sql`null::timestamp`
      : sql`date_trunc(${sql.lit(filter.bucket)}, o.started_at at time zone 'UTC')`;
  const range: RawBuilder<unknown>[] = [sql`true`];
  if (filter.from !== undefined) range.push(sql`o.started_at >= ${filter.from}`);
  if (filter.to !== undefined) range.push(sql`o.started_at < ${filter.to}`);
  const records = (where: RawBuilder<unknown>) => sql`
    select ${cell} as cell, ${bucket} as bucket, true as in_groups, true as in_totals, ${FIGURES.records}
      from gateway_operations o
     where ${sql.join(range, sql` and `)} and ${where}
     group by 1, 2`;
  // The range's whole hours that are rolled up: [rolledStart, rolledEnd). Bounds as values, not
  // expressions, so the planner sizes each part right (a guessed third of the table made it JIT).
  const rolledStart = filter.from === undefined ? null : Math.ceil(filter.from.getTime() / HOUR_MS) * HOUR_MS;
  const lastHour =
    filter.to === undefined ? Number.POSITIVE_INFINITY : Math.floor(filter.to.getTime() / HOUR_MS) * HOUR_MS;
  const rolledEnd = rolledThrough === null ? null : Math.min(lastHour, rolledThrough.getTime());
  if (rolledEnd === null || (rolledStart !== null && rolledEnd <= rolledStart)) {
    return sql`with cells as (${records(sql`true`)})`;
  }
  const start = rolledStart === null ? null : new Date(rolledStart);
  const end = new Date(rolledEnd);
  const rolledRange =
    start === null ? sql`o.started_at < ${end}` : sql`o.started_at >= ${start} and o.started_at < ${end}`;
  const rolled = (name: string, rolledCell: RawBuilder<unknown>, inGroups: boolean, inTotals: boolean) => sql`
    select ${rolledCell} as cell, ${bucket} as bucket, ${sql.lit(inGroups)} as in_groups,
           ${sql.lit(inTotals)} as in_totals, ${FIGURES.rollups}
      from usage_hourly o
     where o.dimension = ${sql.lit(name)} and ${rolledRange}
     group by 1, 2`;
  // A call with two tags is in two tag rows: the totals of a tag report take the `all` rows.
  const rolledParts =
    expands === undefined
      ? rolled(dimension.dimension, dimension.cell, true, true)
      : sql`${rolled(dimension.dimension, dimension.cell, true, false)}
        union all
        ${rolled('all', sql`'{}'::text[]`, false, true)}`;
  const head = start === null ? sql`` : sql`${records(sql`o.started_at < ${start}`)} union all`;
  return sql`with cells as (
    ${head}
    ${records(sql`o.started_at >= ${end}`)}
    union all
    ${rolledParts})`;
}

/** The end of the last hour rolled up (migration 0012), or null before the first roll-up. */
async function rolledThrough(db: Db): Promise<Date | null> {
  const state = await sql<{ at: Date }>`select rolled_through as at from usage_rollup_state`.execute(db);
  return state.rows[0]?.at ?? null;
}

/** The groups (with their buckets) and the totals (with theirs) over the cells. */
function rollupsQuery(filter: UsageFilter): RawBuilder<unknown> {
  const grouping: Grouping = GROUPINGS[filter.groupBy];
  const bucketed = filter.bucket !== undefined;
  const group = grouping.group;
  const groupSets = bucketed ? sql`(${group}, c.bucket), (${group})` : sql`(${group})`;
  const totalSets = bucketed ? sql`(c.bucket), ()` : sql`()`;
  const bucketBit = bucketed ? sql`grouping(c.bucket) * ${sql.lit(BUCKET_ROLLUP)}` : sql.lit(BUCKET_ROLLUP);
  const bucketText = bucketed ? sql`to_char(c.bucket, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : sql`null::text`;
  const select = (groupText: RawBuilder<unknown>, groupBit: RawBuilder<unknown>, joinAndWhere = sql``) => sql`
    select ${groupText} as "group",
           ${bucketText} as bucket,
           ${groupBit} | ${bucketBit} as rollup,
           sum(c.requests) as requests,
           coalesce(sum(c.input_tokens), 0) as input_tokens,
           coalesce(sum(c.output_tokens), 0) as output_tokens,
           coalesce(sum(c.cached_input_tokens), 0) as cached_input_tokens,
           coalesce(sum(c.cost_cents), 0) as cost_cents,
           sum(c.errors) as errors
      from cells c ${joinAndWhere}`;
  if (grouping.expands === undefined) {
    return sql`${select(group, sql`grouping(${group})`)}
      group by grouping sets (${groupSets}, ${totalSets})`;
  }
  // The cells a grouping expands stand in its groups or its totals, not always both (cellsQuery).
  return sql`${select(group, sql.lit(0), sql`${grouping.expands} where c.in_groups`)}
      group by grouping sets (${groupSets})
    union all
    ${select(sql`null`, sql.lit(GROUP_ROLLUP), sql`where c.in_totals`)} group by grouping sets (${totalSets})`;
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
