import { z } from 'zod';
import { encodeCursor, pageQuerySchema, pageRequest } from '../../admin-kit/pagination.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { queryUsage, USAGE_BUCKETS, USAGE_GROUPS } from '../../records/queries/usage-query.ts';
import type { RouteModule } from '../../server/app.ts';
import type { Db } from '../../store/database.ts';
import { storableDateTime } from '../../store/storable-date-time.ts';
import { registerAdminRoute } from './admin-route.ts';
import { dateOf, rangeOrderRefinement } from './time-range.ts';

const time = storableDateTime();

/** `since`/`until`, the names before `from`/`to`, stay accepted; naming one bound twice is a 400. */
function oneNamePerBound(
  value: Partial<Record<'from' | 'to' | 'since' | 'until', string>>,
  context: z.RefinementCtx,
) {
  for (const [name, older] of [
    ['from', 'since'],
    ['to', 'until'],
  ] as const) {
    if (value[name] !== undefined && value[older] !== undefined) {
      context.addIssue({
        code: 'custom',
        path: [older],
        message: `give ${name} or its older name ${older}, not both`,
      });
    }
  }
}

/**
 * Groups in one answer at most: by `tag` a report has as many groups as tags, and 30,000 tags made
 * a 5.4 MB answer; the rest come page by page.
 */
const MAX_USAGE_GROUPS = 1000;

/** Where the page starts: the cursor holds the offset of its first group. */
function offsetOf(query: { limit: number; cursor?: string }): number {
  const { afterId } = pageRequest(query);
  if (afterId === null) return 0;
  if (!/^\d{1,9}$/.test(afterId)) {
    throw new GatewayError('invalid_request', {
      param: 'cursor',
      message: "Invalid value for 'cursor': use the nextCursor of a previous page.",
    });
  }
  return Number(afterId);
}

const usageQuery = z
  .strictObject({
    groupBy: z.enum(USAGE_GROUPS).default('model').meta({
      description:
        "`key` (virtual key id), `model` (public model), `deployment` (served by), `day` (UTC), `tag` (a call with two tags counts under each; untagged calls under null), `team` (the calling key's team; null without one).",
    }),
    from: time.optional().meta({ description: 'Inclusive lower bound of the start time (RFC 3339).' }),
    to: time
      .optional()
      .meta({ description: 'Exclusive upper bound of the start time (RFC 3339), later than `from`.' }),
    since: time.optional().meta({ description: 'Older name of `from`.', deprecated: true }),
    until: time.optional().meta({ description: 'Older name of `to`.', deprecated: true }),
    bucket: z.enum(USAGE_BUCKETS).optional().meta({
      description:
        'With `hour` or `day` (UTC), every group and the totals also carry `series`, one point per bucket with calls.',
    }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_USAGE_GROUPS)
      .default(MAX_USAGE_GROUPS)
      .meta({ description: `Groups per page, 1 to ${MAX_USAGE_GROUPS} (default ${MAX_USAGE_GROUPS}).` }),
    cursor: pageQuerySchema.shape.cursor,
  })
  .superRefine(oneNamePerBound)
  .transform(({ since, until, ...query }) => ({ ...query, from: query.from ?? since, to: query.to ?? until }))
  .superRefine(rangeOrderRefinement('from', 'to'));

const figures = {
  requests: z.number().int().meta({ description: 'Calls started in the range, whatever their outcome.' }),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cachedInputTokens: z
    .number()
    .int()
    .meta({ description: 'Input tokens read from the provider’s prompt cache.' }),
  costCents: z.number(),
  errors: z
    .number()
    .int()
    .meta({ description: 'Calls that ended in an error answer or died with their process.' }),
};

const usagePoint = z
  .object({
    start: z.string().meta({ description: 'First instant of the bucket (RFC 3339, UTC).' }),
    ...figures,
  })
  .meta({ id: 'UsagePoint' });

const series = z
  .array(usagePoint)
  .optional()
  .meta({ description: 'With `bucket` only: the buckets that had calls, oldest first.' });

export const usageReportSchema = z
  .object({
    groupBy: z.enum(USAGE_GROUPS),
    bucket: z.enum(USAGE_BUCKETS).nullable(),
    from: z.string().nullable(),
    to: z.string().nullable(),
    totals: z.object({ ...figures, series }).meta({
      description: 'Every call in the range once (by `tag`, a call with two tags counts once here).',
    }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page of groups; null on the last page.' }),
    data: z.array(
      z.object({
        group: z.string().nullable().meta({
          description:
            'Key id, public model, deployment id, day `YYYY-MM-DD`, tag or team id; null for the master key, a call that reached no deployment, untagged calls, or keys without a team.',
        }),
        ...figures,
        series,
      }),
    ),
  })
  .meta({ id: 'UsageReport' });

/** `GET /admin/usage` (variant B): totals and per-bucket series per key, model, deployment, day or tag. */
export function usageModule(db: Db): RouteModule {
  return {
    surface: 'admin',
    register: (scope, docs) => {
      registerAdminRoute(scope, docs, {
        method: 'get',
        path: '/usage',
        summary:
          'Calls, tokens, cost and errors per key, model, deployment, day or tag, in total and per hour or day',
        tag: 'records',
        query: usageQuery,
        response: usageReportSchema,
        responseDescription: 'The totals, and one entry per group ordered by group.',
        handle: async ({ query }) => {
          const from = dateOf(query.from);
          const to = dateOf(query.to);
          const offset = offsetOf(query);
          const report = await queryUsage(db, { groupBy: query.groupBy, from, to, bucket: query.bucket });
          const end = offset + query.limit;
          return {
            groupBy: query.groupBy,
            bucket: query.bucket ?? null,
            from: from?.toISOString() ?? null,
            to: to?.toISOString() ?? null,
            totals: report.totals,
            data: report.data.slice(offset, end),
            nextCursor: end < report.data.length ? encodeCursor(String(end)) : null,
          };
        },
      });
    },
  };
}
