import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pathOf } from '../../audit/audit-event.ts';
import { writeAuditEvents } from '../../audit/audit-log.ts';
import { findPayloadSamples, openPayloadSample } from '../../audit/payload-samples.ts';
import type { Keyring } from '../../crypto/index.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { recordId } from '../../records/record-id.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import type { Db } from '../../store/database.ts';
import { registerAdminRoute } from './admin-route.ts';

/** Longest reason kept: a sentence or a ticket reference, not a document. */
export const PAYLOAD_REASON_MAX_LENGTH = 500;

const params = z.object({
  requestId: z.string().min(1).max(200).meta({ description: 'The `x-request-id` of the call.' }),
});
const query = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1)
    .max(PAYLOAD_REASON_MAX_LENGTH)
    .meta({
      description: `Why the payload is read (1-${PAYLOAD_REASON_MAX_LENGTH} characters); kept in the audit.`,
    }),
});

const sampleSchema = z
  .object({
    id: z.string(),
    operationId: z.string(),
    createdAt: z.string(),
    sampleReason: z.enum(['sampled', 'failure']),
    payload: z.unknown().meta({
      description:
        "The call's request body, answer and error detail as sampled (bounded); null when its key left the keyring.",
    }),
  })
  .meta({ id: 'PayloadSample' });

const answerSchema = z
  .object({ requestId: z.string(), data: z.array(sampleSchema) })
  .meta({ id: 'PayloadSamples' });

/**
 * `GET /admin/logs/{requestId}/payload?reason=` (variant B): opens a call's payload samples for an
 * operator. The payload-access row is written before anything is opened, on the request path: an
 * access the audit cannot record is refused (503), never served unrecorded.
 */
export function registerPayloadRoute(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  db: Db,
  keyring: Keyring,
) {
  registerAdminRoute(scope, docs, {
    method: 'get',
    path: '/logs/:requestId/payload',
    summary: "Read a call's encrypted payload samples (audited; a reason is required)",
    tag: 'records',
    params,
    query,
    response: answerSchema,
    responseDescription: 'The samples of the call, newest first, decrypted.',
    handle: async ({ params, query, caller }) => {
      const samples = await findPayloadSamples(db, params.requestId);
      if (samples.length === 0) {
        throw new GatewayError('not_found', {
          param: 'requestId',
          message: `No payload sample for request id '${params.requestId}'.`,
        });
      }
      await auditOrRefuse(db, [
        {
          id: recordId('aud'),
          kind: 'payload_access',
          at: new Date(),
          actor: 'master',
          method: 'GET',
          path: pathOf(`/admin/logs/${encodeURIComponent(params.requestId)}/payload`),
          resourceId: params.requestId,
          status: 200,
          requestId: params.requestId,
          sourceAddress: caller.sourceAddress,
          reason: query.reason,
        },
      ]);
      return {
        requestId: params.requestId,
        data: samples.map((sample) => openPayloadSample(keyring, sample)),
      };
    },
  });
}

/** What a client should wait before asking again when the access could not be audited. */
const AUDIT_RETRY_AFTER_SECONDS = 2;

/**
 * No audit row, no payload: a read whose payload-access row cannot be written, for whatever
 * reason (the database away, a constraint, a full disk), answers 503 with Retry-After and shows
 * nothing, never a 500.
 */
async function auditOrRefuse(db: Db, events: Parameters<typeof writeAuditEvents>[1]): Promise<void> {
  try {
    await writeAuditEvents(db, events);
  } catch (error) {
    throw new GatewayError('service_unavailable', {
      message: 'The access could not be audited, so nothing is shown; retry shortly.',
      retryAfterSeconds: AUDIT_RETRY_AFTER_SECONDS,
      detail: error instanceof Error ? error.message : String(error),
      cause: error,
    });
  }
}
