import { z } from 'zod';
import { cursorParam } from '../../records/queries/cursor.ts';
import { OPERATION_STATUSES, queryOperationLog } from '../../records/queries/operation-log-query.ts';
import type { RouteModule } from '../../server/app.ts';
import type { Db } from '../../store/database.ts';
import { registerAdminRoute } from './admin-route.ts';
import { dateOf, timeRangeQuery, timeRangeRefinement } from './time-range.ts';

/** Page size of `GET /admin/logs` when `limit` is absent, and its bound. */
export const LOGS_DEFAULT_LIMIT = 50;
export const LOGS_MAX_LIMIT = 500;

const id = z.string().min(1).max(200);
const logsQuery = z
  .strictObject({
    requestId: id.optional().meta({ description: 'The `x-request-id` of the call.' }),
    keyId: id.optional().meta({ description: 'Virtual key id (`key_…`).' }),
    teamId: id.optional().meta({ description: "Team id (`team_…`) of the calling key at the call's time." }),
    publicModel: id.optional(),
    deploymentId: id
      .optional()
      .meta({ description: 'Operations served by this deployment or with an attempt on it.' }),
    status: z.enum(OPERATION_STATUSES).optional(),
    code: id.optional().meta({ description: 'Error code of the call (docs/api.md, Errors).' }),
    tag: id
      .optional()
      .meta({ description: 'Operations carrying this tag (`x-switchyard-tags` or the key defaults).' }),
    ...timeRangeQuery('start time'),
    limit: z.coerce.number().int().min(1).max(LOGS_MAX_LIMIT).default(LOGS_DEFAULT_LIMIT),
    cursor: z.string().min(1).max(400).optional().meta({ description: '`nextCursor` of the previous page.' }),
  })
  .superRefine(timeRangeRefinement);

const attemptSchema = z
  .object({
    index: z.number().int(),
    deploymentId: z.string(),
    provider: z.string(),
    upstreamModel: z.string(),
    publicModel: z.string(),
    startedAt: z.string(),
    outcome: z.enum(['in_progress', 'success', 'failure', 'abandoned']),
    latencyMs: z.number().nullable(),
    firstByteMs: z.number().nullable(),
    httpStatus: z.number().nullable(),
    errorClass: z.string().nullable(),
    errorCode: z.string().nullable(),
    errorDetail: z.unknown().meta({
      description:
        "For a failed attempt: `{ code, errorClass, status, detail }`, detail holding the provider's own status, message and body. Shown only here.",
    }),
  })
  .meta({ id: 'UpstreamAttempt' });

const contentFilterHitSchema = z
  .object({
    source: z.enum(['prompt', 'completion']).meta({
      description: '`prompt` (`prompt_filter_results`) or `completion` (a choice of the answer).',
    }),
    index: z.number().int().meta({ description: "The prompt's or the choice's index." }),
    category: z.string().meta({
      description: '`hate`, `sexual`, `violence`, `self_harm`, `jailbreak`, `protected_material_text`, ...',
    }),
    severity: z
      .string()
      .optional()
      .meta({ description: '`safe`, `low`, `medium` or `high`; absent for a detector that gives none.' }),
    blocklists: z
      .array(z.string())
      .optional()
      .meta({ description: '`custom_blocklists`: the ids of the lists that matched.' }),
  })
  .meta({ id: 'ContentFilterHit' });

export const gatewayOperationSchema = z
  .object({
    id: z.string(),
    requestId: z.string(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    status: z.enum(OPERATION_STATUSES),
    httpStatus: z.number().nullable(),
    errorCode: z.string().nullable(),
    errorClass: z.string().nullable(),
    operation: z.string(),
    keyId: z.string().nullable().meta({ description: 'Null for the master key.' }),
    publicModel: z.string(),
    deploymentId: z.string().nullable(),
    stream: z.boolean(),
    inputTokens: z.number().nullable(),
    outputTokens: z.number().nullable(),
    cachedInputTokens: z.number().nullable(),
    costCents: z.number(),
    cacheHit: z
      .boolean()
      .meta({ description: 'Answered from the response cache: no upstream attempt, nothing billed.' }),
    tags: z
      .array(z.string())
      .meta({ description: "The call's `x-switchyard-tags`, then its key's default tags (at most 10)." }),
    extensions: z
      .array(
        z.object({
          extensionId: z.string(),
          hook: z.enum(['beforeUpstream', 'afterUpstream']),
          outcome: z.enum(['continue', 'replaced', 'rejected', 'observed', 'failed', 'skipped', 'disabled']),
          durationMs: z.number(),
          failure: z.string().nullable(),
        }),
      )
      .meta({
        description: 'The extension hooks that ran on the call, in order, with their outcome and duration.',
      }),
    latencyMs: z.number().nullable(),
    prompt: z.string().nullable().meta({ description: 'Truncated to MAX_STRING_LENGTH_PROMPT_IN_DB.' }),
    contentFilter: z.array(contentFilterHitSchema).nullable().meta({
      description:
        "What the provider's content filter withheld from the answer (Azure OpenAI): each category that filtered, never the text; null when nothing was filtered.",
    }),
    attempts: z.array(attemptSchema),
  })
  .meta({ id: 'GatewayOperation' });

const logsPage = z
  .object({ data: z.array(gatewayOperationSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'GatewayOperationPage' });

/** `GET /admin/logs` (variant B): request records, newest first, found by request id and filters. */
export function logsModule(db: Db): RouteModule {
  return {
    surface: 'admin',
    register: (scope, docs) => {
      registerAdminRoute(scope, docs, {
        method: 'get',
        path: '/logs',
        summary: 'Request records (operations with their upstream attempts), newest first',
        tag: 'records',
        query: logsQuery,
        response: logsPage,
        responseDescription: 'One page of operations; `nextCursor` is null on the last page.',
        handle: async ({ query }) =>
          queryOperationLog(db, {
            ...query,
            since: dateOf(query.since),
            until: dateOf(query.until),
            cursor: cursorParam(query.cursor),
          }),
      });
    },
  };
}
