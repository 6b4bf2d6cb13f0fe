import type { ServerResponse } from 'node:http';
import { ZodError, type z } from 'zod';
import { CacheUnavailableError } from '../cache/cache-store.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import {
  type ErrorShape,
  errorHeaders,
  errorStatus,
  renderErrorBody,
  type UpstreamErrorMessages,
} from '../errors/render-error.ts';
import { isDatabaseUnavailable, isUnstorableText } from '../store/database.ts';

/**
 * `/v1/messages` (and its `count_tokens`) speaks Anthropic; so does `/v1/models` to a caller that
 * sends `anthropic-version` (an Anthropic SDK). Every other surface answers in the OpenAI shape
 * (SPEC.md, Errors).
 */
export function errorShapeFor(url: string, anthropicVersion?: string | string[]): ErrorShape {
  if (url.startsWith('/v1/messages')) return 'anthropic';
  return url.startsWith('/v1/models') && anthropicVersion !== undefined ? 'anthropic' : 'openai';
}

/** Seconds a client should wait while a dependency is down. */
const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/**
 * The issue to report: for a value no member of a union accepts (a list where a text or a list of
 * items belongs), the issue of the member that got deepest into it, so that the error names the
 * failing item (`input.3.content`), not the whole field; the union's own message when none got in.
 */
function reportedIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  let deepest: z.core.$ZodIssue | null = null;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first !== undefined && first.path.length > (deepest?.path.length ?? 0)) deepest = first;
  }
  if (deepest === null) return issue;
  const inner = reportedIssue(deepest);
  return { ...inner, path: [...issue.path, ...inner.path] };
}

function fromZod(error: ZodError): GatewayError {
  const issue = reportedIssue(error.issues[0]);
  const param = issue.path.map(String).join('.') || null;
  const message = param === null ? issue.message : `Invalid value for '${param}': ${issue.message}`;
  return new GatewayError('invalid_request', { param, message, detail: error.issues });
}

/** Our words for the client errors fastify and Node.js raise while reading a body; theirs can echo input. */
const CLIENT_ERROR_MESSAGES: Readonly<Record<number, string>> = {
  413: 'The request body is too large.',
  415: 'This endpoint does not take this content type: send the body as application/json (multipart/form-data where the endpoint takes a file).',
};

/**
 * fastify's own client errors (body too large, wrong content type, a bad
 * content-length) keep their status, in the gateway's shape and words.
 */
function fromClientError(error: {
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
}): GatewayError | null {
  const status = error.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  const message = CLIENT_ERROR_MESSAGES[status] ?? 'The request is not valid.';
  // 413: Anthropic clients expect `request_too_large`; OpenAI clients get it as the code.
  const code = status === 413 ? 'request_too_large' : 'invalid_request';
  return new GatewayError(code, { status, message, detail: error.code ?? error.message });
}

/** Maps anything thrown below the HTTP layer to the one error type. Unknown errors become internal_error. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof CacheUnavailableError || isDatabaseUnavailable(error)) {
    return new GatewayError('service_unavailable', {
      retryAfterSeconds: DEPENDENCY_RETRY_AFTER_SECONDS,
      detail: String(error),
      cause: error,
    });
  }
  if (error instanceof ZodError) return fromZod(error);
  if (isUnstorableText(error)) {
    return new GatewayError('invalid_request', {
      message: 'The request holds a NUL character (in an id or a field), which no stored value can hold.',
      detail: String(error),
    });
  }
  const clientError = typeof error === 'object' && error !== null ? fromClientError(error) : null;
  if (clientError !== null) return clientError;
  return new GatewayError('internal_error', { detail: String(error), cause: error });
}

/** Writes an error on a raw response (hijacked inference routes), headers included. */
export function writeRawError(
  res: ServerResponse,
  error: GatewayError,
  shape: ErrorShape,
  requestId: string,
  headers: Record<string, string> = {},
  messages: UpstreamErrorMessages = 'generic',
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(renderErrorBody(error, shape, messages));
  res.writeHead(errorStatus(error, shape), {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    ...errorHeaders(error),
  });
  res.end(body);
}
