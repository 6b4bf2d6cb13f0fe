import { sql } from 'kysely';
import type { Db } from '../../store/database.ts';

export const USAGE_GROUPS = ['key', 'model', 'deployment', 'day', 'tag', 'team'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageFilter {
  groupBy: UsageGroup;
  since?: Date;
  until?: Date;
}

export interface UsageRow {
  /**
   * Key id (null: the master key), public model, deployment id (null: never reached one), UTC day
   * `YYYY-MM-DD`, tag (null: calls without tags) or team id (null: calls by keys without a team).
   */
  group: string | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costCents: number;
}

/** The grouping expression of each `groupBy`; days are UTC, whatever the session time zone. */
const GROUP_EXPRESSIONS = {
  key: sql<string | null>`key_id`,
  model: sql<string | null>`public_model`,
  deployment: sql<string | null>`deployment_id`,
  day: sql<string | null>`to_char(started_at at time zone 'UTC', 'YYYY-MM-DD')`,
  tag: sql<string | null>`tag.tag`,
  team: sql<string | null>`team_id`,
} as const satisfies Record<UsageGroup, unknown>;

/**
 * `GET /admin/usage`: requests, tokens and cost per group over the retained operations. By tag,
 * each operation is joined to each of its tags (counted under every one) or, without tags, to a
 * single null tag.
 */
export async function queryUsage(db: Db, filter: UsageFilter): Promise<UsageRow[]> {
  const group = GROUP_EXPRESSIONS[filter.groupBy];
  const operations =
    filter.groupBy === 'tag'
      ? db
          .selectFrom('gateway_operations')
          .leftJoin(sql<{ tag: string }>`unnest(gateway_operations.tags)`.as('tag'), (join) => join.onTrue())
      : db.selectFrom('gateway_operations');
  let query = operations.select([
    group.as('group'),
    sql<number>`count(*)`.as('requests'),
    sql<number>`coalesce(sum(input_tokens), 0)`.as('input_tokens'),
    sql<number>`coalesce(sum(output_tokens), 0)`.as('output_tokens'),
    sql<number>`coalesce(sum(cost_cents), 0)`.as('cost_cents'),
  ]);
  if (filter.since !== undefined) query = query.where('started_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('started_at', '<', filter.until);
  const rows = await query.groupBy(sql`1`).orderBy(sql`1`).execute();
  return rows.map((row) => ({
    group: row.group,
    requests: Number(row.requests),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    costCents: Number(row.cost_cents),
  }));
}
