import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  AUDIT_KINDS,
  type AuditEvent,
  boundedId,
  MUTATION_METHODS,
  pathOf,
} from '../../audit/audit-event.ts';
import type { AuditLog } from '../../audit/audit-log.ts';
import { queryAuditLog } from '../../audit/audit-query.ts';
import { cursorParam } from '../../records/queries/cursor.ts';
import type { RouteModule } from '../../server/app.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import type { Db } from '../../store/database.ts';
import { registerAdminRoute } from './admin-route.ts';
import { LOGS_DEFAULT_LIMIT, LOGS_MAX_LIMIT } from './logs.ts';
import { dateOf, timeRangeQuery, timeRangeRefinement } from './time-range.ts';

const auditQuery = z
  .strictObject({
    kind: z.enum(AUDIT_KINDS).optional(),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
    path: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .meta({ description: 'Rows whose path starts with this, e.g. `/admin/keys`.' }),
    resourceId: z.string().min(1).max(200).optional().meta({ description: 'The id acted on.' }),
    status: z.coerce.number().int().min(100).max(599).optional(),
    ...timeRangeQuery('time of the row'),
    limit: z.coerce.number().int().min(1).max(LOGS_MAX_LIMIT).default(LOGS_DEFAULT_LIMIT),
    cursor: z.string().min(1).max(400).optional().meta({ description: '`nextCursor` of the previous page.' }),
  })
  .superRefine(timeRangeRefinement);

export const auditEventSchema = z
  .object({
    id: z.string(),
    kind: z.enum(AUDIT_KINDS),
    at: z.string(),
    actor: z.string().meta({ description: '`master`: the master key is the only admin principal.' }),
    method: z.string(),
    path: z.string().meta({ description: 'The request path, without its query string.' }),
    resourceId: z.string().nullable().meta({
      description: 'The id in the path, or the id a create made; for a payload access, the request id.',
    }),
    status: z.number().int().meta({ description: 'The HTTP status answered (refusals are rows too).' }),
    requestId: z.string().meta({
      description: "The admin request's `x-request-id`; for a payload access, the call's request id.",
    }),
    sourceAddress: z.string().nullable(),
    reason: z.string().nullable().meta({ description: "The operator's reason (payload access only)." }),
  })
  .meta({ id: 'AuditEvent' });

const auditPage = z
  .object({ data: z.array(auditEventSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'AuditEventPage' });

/**
 * The audit trail of the admin surface (DESIGN.md section 5, Audit): every mutation that reached
 * it with the master key is a row, refusals included, written before its answer is sent (queued
 * instead when the database is away); `GET /admin/audit` lists them. A request without the master
 * key acted on nothing (401) and is left to the access log.
 */
export function auditModule(deps: { db: Db; log: AuditLog; extra?: RouteModule['register'] }): RouteModule {
  return {
    surface: 'admin',
    register: (scope, docs) => {
      recordMutations(scope, deps.log, deps.db);
      registerAuditRoute(scope, docs, deps.db);
      deps.extra?.(scope, docs);
    },
  };
}

function recordMutations(scope: FastifyInstance, log: AuditLog, db: Db): void {
  // The id a create made is only in its answer: taken before serialization, never anything else of it.
  const created = new WeakMap<FastifyRequest, string>();
  scope.addHook('preSerialization', (request, reply, payload, done) => {
    const id = (payload as { id?: unknown } | null)?.id;
    if (reply.statusCode < 300 && MUTATION_METHODS.has(request.method) && typeof id === 'string') {
      created.set(request, id);
    }
    done(null, payload);
  });
  scope.addHook('onSend', async (request, reply, payload) => {
    if (!MUTATION_METHODS.has(request.method) || request.principal?.kind !== 'master') return payload;
    const param = (request.params as { id?: unknown } | undefined)?.id;
    const event: AuditEvent = {
      kind: 'admin_mutation',
      at: new Date(),
      actor: 'master',
      method: request.method,
      path: pathOf(request.url),
      resourceId: boundedId(typeof param === 'string' ? param : (created.get(request) ?? null)),
      status: reply.statusCode,
      requestId: request.id,
      sourceAddress: request.ip ?? null,
      reason: null,
    };
    // A 503 changed nothing and says the database is away: queued, so the answer is not held.
    if (reply.statusCode === 503) log.record(event);
    else await log.recordNow(event, db);
    return payload;
  });
}

function registerAuditRoute(scope: FastifyInstance, docs: OpenApiRegistry, db: Db): void {
  registerAdminRoute(scope, docs, {
    method: 'get',
    path: '/audit',
    summary: 'Audit trail: admin mutations and payload accesses, newest first',
    tag: 'audit',
    query: auditQuery,
    response: auditPage,
    responseDescription: 'One page of audit rows; `nextCursor` is null on the last page.',
    handle: async ({ query }) => {
      return queryAuditLog(db, {
        ...query,
        since: dateOf(query.since),
        until: dateOf(query.until),
        cursor: cursorParam(query.cursor),
      });
    },
  });
}
