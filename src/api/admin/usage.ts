import { z } from 'zod';
import { queryUsage, USAGE_GROUPS } from '../../records/queries/usage-query.ts';
import type { RouteModule } from '../../server/app.ts';
import type { Db } from '../../store/database.ts';
import { storableDateTime } from '../../store/storable-date-time.ts';
import { registerAdminRoute } from './admin-route.ts';

const time = storableDateTime();

const usageQuery = z.strictObject({
  groupBy: z.enum(USAGE_GROUPS).default('model').meta({
    description:
      "`key` (virtual key id), `model` (public model), `deployment` (served by), `day` (UTC), `tag` (a call with two tags counts under each; untagged calls under null), `team` (the calling key's team; null without one).",
  }),
  since: time.optional().meta({ description: 'Inclusive lower bound of the start time (RFC 3339).' }),
  until: time.optional().meta({ description: 'Exclusive upper bound of the start time (RFC 3339).' }),
});

const usageReport = z
  .object({
    groupBy: z.enum(USAGE_GROUPS),
    data: z.array(
      z.object({
        group: z.string().nullable().meta({
          description:
            'Key id, public model, deployment id, day `YYYY-MM-DD`, tag or team id; null for the master key, a call that reached no deployment, untagged calls, or keys without a team.',
        }),
        requests: z.number().int(),
        inputTokens: z.number().int(),
        outputTokens: z.number().int(),
        costCents: z.number(),
      }),
    ),
  })
  .meta({ id: 'UsageReport' });

/** `GET /admin/usage` (variant B): requests, tokens and cost per key, model, deployment, day, tag or team. */
export function usageModule(db: Db): RouteModule {
  return {
    surface: 'admin',
    register: (scope, docs) => {
      registerAdminRoute(scope, docs, {
        method: 'get',
        path: '/usage',
        summary: 'Requests, input and output tokens and cost per key, model, deployment, day, tag or team',
        tag: 'records',
        query: usageQuery,
        response: usageReport,
        responseDescription: 'One entry per group, ordered by group.',
        handle: async ({ query }) => ({
          groupBy: query.groupBy,
          data: await queryUsage(db, {
            groupBy: query.groupBy,
            since: query.since === undefined ? undefined : new Date(query.since),
            until: query.until === undefined ? undefined : new Date(query.until),
          }),
        }),
      });
    },
  };
}
