import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.ts';
import { errorStatus, type UpstreamErrorMessages } from '../../errors/render-error.ts';
import { carryRequestText } from '../../formats/request-text.ts';
import type { CallContext, CallOutcome } from '../../pipeline/call-context.ts';
import { type AbortSource, CallSignal } from '../../pipeline/call-signal.ts';
import { newCallSlots } from '../../pipeline/call-slot.ts';
import { mergeTags, parseTagsHeader, TAGS_HEADER } from '../../pipeline/call-tags.ts';
import { type Endpoint, type EndpointBody, MULTIPART_UPLOAD } from '../../pipeline/endpoint.ts';
import type { InferencePipeline } from '../../pipeline/pipeline.ts';
import { FORWARDED_CLIENT_HEADERS } from '../../providers/registry.ts';
import { toGatewayError, writeRawError } from '../../server/error-response.ts';
import { INFERENCE_SECURITY, type OpenApiRegistry } from '../../server/openapi.ts';
import { ClientAbortedError } from '../../upstream/upstream-failure.ts';
import { type MultipartLimits, readMultipartFields } from './multipart-fields.ts';
import { writeAnswer } from './respond.ts';

/** What the handler needs besides the endpoint and the pipeline. */
export interface InferenceRouteOptions {
  multipart: MultipartLimits;
  /** UPSTREAM_ERROR_MESSAGES: whether an upstream's scrubbed wording may reach the client. */
  upstreamErrorMessages: UpstreamErrorMessages;
}

const MEDIA_TYPES = { json: 'application/json', multipart: 'multipart/form-data' } as const;

/** Registers one endpoint on the generic inference handler (one handler, many descriptors: a fix to the handler reaches every endpoint). */
export function registerInferenceRoute(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  endpoint: Endpoint,
  pipeline: InferencePipeline,
  options: InferenceRouteOptions,
): void {
  scope.post(endpoint.path, (request, reply) => handle(endpoint, pipeline, options, request, reply));
  docs.add({
    method: 'post',
    path: `/v1${endpoint.path}`,
    operation: {
      summary: endpoint.summary,
      tags: ['inference'],
      security: INFERENCE_SECURITY,
      requestBody: {
        required: true,
        content: {
          [MEDIA_TYPES[endpoint.requestFormat]]: { schema: endpoint.docSchema ?? endpoint.bodySchema },
        },
      },
      responses: {
        200: {
          description: endpoint.streamable
            ? 'The answer in the endpoint format; `text/event-stream` when `stream` is true.'
            : 'The answer in the endpoint format (transcriptions in `text`, `srt` or `vtt`: as text).',
        },
        '4XX': {
          description:
            'A refusal: `invalid_request` and the other codes of docs/api.md (Errors), or `extension_rejected` with the status an extension chose.',
        },
        503: {
          description:
            '`service_unavailable`, `server_busy`, or `extension_disabled` (a critical extension tripped its failure breaker); carries Retry-After.',
        },
        default: {
          description: `An error in the ${endpoint.shape === 'anthropic' ? 'Anthropic' : 'OpenAI'} shape.`,
        },
      },
    },
  });
}

function unsupportedMediaType(endpoint: Endpoint): GatewayError {
  return new GatewayError('invalid_request', {
    status: 415,
    message: `This endpoint takes ${MEDIA_TYPES[endpoint.requestFormat]}.`,
  });
}

/**
 * The validated body. A multipart body arrives as the raw request stream (see index.ts): its text
 * fields are read and validated, and its upload rides on the body (MULTIPART_UPLOAD).
 */
async function bodyOf(
  endpoint: Endpoint,
  request: FastifyRequest,
  options: InferenceRouteOptions,
): Promise<EndpointBody> {
  const raw = request.body instanceof Readable ? request.body : null;
  if ((raw !== null) !== (endpoint.requestFormat === 'multipart')) throw unsupportedMediaType(endpoint);
  if (raw === null) {
    const body = endpoint.bodySchema.parse(request.body);
    carryRequestText(body, request.body);
    return body;
  }
  const form = await readMultipartFields(raw, request.headers['content-type'] ?? '', options.multipart);
  const body = endpoint.bodySchema.parse(form.fields);
  body[MULTIPART_UPLOAD] = form.upload;
  return body;
}

async function createContext(
  endpoint: Endpoint,
  request: FastifyRequest,
  options: InferenceRouteOptions,
  signal: AbortSource,
): Promise<CallContext> {
  // Taken before a multipart form is read: the call's latency includes reading its fields.
  const startedAtMs = Date.now();
  const tags = callTags(request);
  const body = await bodyOf(endpoint, request, options);
  const stream = body.stream === true;
  if (stream && !endpoint.streamable) {
    throw new GatewayError('invalid_request', { param: 'stream', message: 'This endpoint does not stream.' });
  }
  return {
    requestId: request.id,
    endpoint,
    principal: request.principal,
    startedAtMs,
    signal,
    body,
    stream,
    tags,
    publicModel: body.model,
    servedBy: null,
    responseHeaders: { 'x-request-id': request.id },
    attempts: [],
    usage: null,
    costCents: 0,
    cacheControl: request.headers['cache-control'],
    clientHeaders: forwardedHeaders(request),
    slots: newCallSlots(),
  };
}

/** The client's values of the headers some provider forwards; a repeated header's values joined by commas. */
export function forwardedHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_CLIENT_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

/** The header's tags, then the calling key's defaults. */
function callTags(request: FastifyRequest): readonly string[] {
  const own = parseTagsHeader(request.headers[TAGS_HEADER]);
  const principal = request.principal;
  return principal.kind === 'virtual' ? mergeTags(own, principal.key.tags) : own;
}

async function handle(
  endpoint: Endpoint,
  pipeline: InferencePipeline,
  options: InferenceRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  // The socket's inactivity bound (HTTP_CONNECTION_TIMEOUT_MS) is lifted while the call runs: an
  // upstream may think for minutes before its first byte, and the router's own timeouts bound
  // the call. The request timeout still bounds an upload that stalls.
  const socket = request.raw.socket;
  socket.setTimeout(0);
  const signal = new CallSignal();
  res.once('close', () => {
    if (!res.writableFinished) signal.abort();
  });
  let ctx: CallContext | undefined;
  let outcome: CallOutcome = { status: 200, error: null, streamBroken: false };
  try {
    ctx = await createContext(endpoint, request, options, signal);
    const result = await pipeline.run(ctx);
    outcome = await writeAnswer(res, ctx, result, options.upstreamErrorMessages);
  } catch (error) {
    const cause = signal.aborted ? new ClientAbortedError() : error;
    outcome = failed(res, cause, endpoint, request, options.upstreamErrorMessages, ctx?.responseHeaders);
  } finally {
    if (ctx !== undefined) pipeline.finish(ctx, outcome);
    discardUnread(request);
    if (!socket.destroyed) socket.setTimeout(request.server.server.timeout);
  }
}

/**
 * An upload the upstream never read in full (refused before the call, or answered early) is read
 * to its end and dropped, so the connection can carry the client's next request.
 */
function discardUnread(request: FastifyRequest): void {
  const raw = request.raw;
  if (!raw.readableEnded && !raw.destroyed) raw.resume();
}

function failed(
  res: ServerResponse,
  error: unknown,
  endpoint: Endpoint,
  request: FastifyRequest,
  messages: UpstreamErrorMessages,
  headers: Record<string, string> = {},
): CallOutcome {
  if (error instanceof ClientAbortedError) {
    return { status: 499, error: null, streamBroken: false };
  }
  const gatewayError = toGatewayError(error);
  if (gatewayError.status >= 500)
    request.log.warn({ code: gatewayError.code, detail: gatewayError.detail }, 'call failed');
  writeRawError(res, gatewayError, endpoint.shape, request.id, headers, messages);
  // The status the client got: Anthropic's own for an Anthropic-shape answer (529 overloaded).
  return { status: errorStatus(gatewayError, endpoint.shape), error: gatewayError, streamBroken: false };
}
