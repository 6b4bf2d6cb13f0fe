import { scrubSecrets, scrubSecretText } from '../diagnostics/scrub-secrets.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { AbortSource } from '../pipeline/call-signal.ts';
import { upstreamGatewayError } from '../providers/shared/upstream-error.ts';
import type { ProviderAdapter } from '../providers/types.ts';

/** undici error codes for a peer that never answered in time. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Raised when the client went away: not the upstream's fault, never retried, never cools a deployment. */
export class ClientAbortedError extends Error {
  constructor() {
    super('client closed the connection');
    this.name = 'ClientAbortedError';
  }
}

/** A transport failure (no HTTP answer) as a classified GatewayError. */
export function transportFailure(error: unknown, signal: AbortSource): Error {
  if (signal.aborted) return new ClientAbortedError();
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string }).code ?? 'unknown';
  const detail = { transport: code, message: (error as Error).message };
  if (TIMEOUT_CODES.has(code)) return new GatewayError('timeout', { detail, cause: error });
  return new GatewayError('upstream_error', { detail, cause: error });
}

/**
 * A non-2xx upstream answer, classified by the provider's own table; its wording stays private
 * (upstreamGatewayError). `native` is false when the upstream saw a translation of the client's
 * request: the field and code it names are then about a body the client never sent, and are dropped.
 */
export function httpFailure(
  adapter: ProviderAdapter,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
  native = true,
): GatewayError {
  const info = adapter.classifyError(status, body, headers);
  const { param: _param, upstreamCode: _code, ...aboutTheCall } = info;
  return upstreamGatewayError(native ? info : aboutTheCall, { upstreamStatus: status, body });
}

/** Parses an upstream body as JSON when it is JSON, else keeps the text (for the record only). */
export function parseUpstreamBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * `failure` with its private detail and its upstream wording scrubbed of `secrets` (the
 * deployment's credential, the master key) and of anything shaped like a credential: an upstream
 * may echo the key it was sent in its error body, and the detail goes to the log, the record and
 * `GET /admin/logs` (the wording to the client too, with UPSTREAM_ERROR_MESSAGES=passthrough).
 */
export function scrubbedFailure(failure: unknown, secrets: readonly string[]): unknown {
  if (!(failure instanceof GatewayError) || failure.detail === undefined) return failure;
  const detail = scrubSecrets(failure.detail, secrets);
  if (detail === failure.detail) return failure;
  return new GatewayError(failure.code, {
    param: failure.param,
    message: failure.publicMessage,
    detail,
    retryAfterSeconds: failure.retryAfterSeconds,
    shouldRetry: failure.shouldRetry,
    status: failure.status,
    errorClass: failure.errorClass,
    upstreamCode: failure.upstreamCode,
    tokenCounts: failure.tokenCounts,
    anthropicAnswer: failure.anthropicAnswer,
    upstreamMessage:
      failure.upstreamMessage === undefined ? undefined : scrubSecretText(failure.upstreamMessage, secrets),
    cause: failure.cause,
  });
}
