import type { ErrorClass } from '../../errors/error-classes.ts';
import type { ErrorCode } from '../../errors/error-codes.ts';
import type { UpstreamErrorInfo } from '../types.ts';

export interface StatusClassification {
  errorClass: ErrorClass;
  code: ErrorCode;
}

/** The outcomes a provider's tables map its statuses, error types and wording onto. */
export const BAD_REQUEST: StatusClassification = Object.freeze({
  errorClass: 'bad_request',
  code: 'invalid_request',
});
/** The deployment's credential, not the client's: a server-class failure a fallback can route around. */
export const UPSTREAM_AUTH: StatusClassification = Object.freeze({
  errorClass: 'server',
  code: 'upstream_auth_failed',
});
export const UPSTREAM: StatusClassification = Object.freeze({ errorClass: 'server', code: 'upstream_error' });
export const TIMEOUT: StatusClassification = Object.freeze({ errorClass: 'timeout', code: 'timeout' });
export const RATE_LIMIT: StatusClassification = Object.freeze({
  errorClass: 'rate_limit',
  code: 'rate_limit_exceeded',
});
export const CONTEXT_WINDOW: StatusClassification = Object.freeze({
  errorClass: 'context_window',
  code: 'context_length_exceeded',
});
export const CONTENT_POLICY: StatusClassification = Object.freeze({
  errorClass: 'content_policy',
  code: 'content_policy_violation',
});

/**
 * How an upstream HTTP status maps onto SPEC.md's classes before any provider-specific code is
 * read. 401/403 are the deployment's credential, not the client's: a server-class failure an
 * operator must fix, and one a fallback can route around. 404 means the deployment points at a
 * model or path the upstream does not have: also the deployment's fault.
 */
export const UPSTREAM_STATUS_TABLE: Readonly<Record<number, StatusClassification>> = Object.freeze({
  400: BAD_REQUEST,
  401: UPSTREAM_AUTH,
  403: UPSTREAM_AUTH,
  404: UPSTREAM,
  408: TIMEOUT,
  413: BAD_REQUEST,
  422: BAD_REQUEST,
  429: RATE_LIMIT,
  504: TIMEOUT,
});

/** The classification of a status alone; anything unlisted is an upstream failure. */
export function classifyUpstreamStatus(status: number): StatusClassification {
  return UPSTREAM_STATUS_TABLE[status] ?? UPSTREAM;
}

/** The classified failure, with the upstream's wait hint and its wording (private detail) when it gave them. */
export function upstreamErrorInfo(
  outcome: StatusClassification,
  retryAfterSeconds: number | undefined,
  providerMessage: string | undefined,
): UpstreamErrorInfo {
  const info: UpstreamErrorInfo = { errorClass: outcome.errorClass, code: outcome.code };
  if (retryAfterSeconds !== undefined) info.retryAfterSeconds = retryAfterSeconds;
  if (providerMessage !== undefined) info.providerMessage = providerMessage;
  return info;
}

/** Case-insensitive search of a provider's message for any of the given markers. */
export function messageHasMarker(message: string | undefined, markers: readonly string[]): boolean {
  if (message === undefined) return false;
  const lower = message.toLowerCase();
  return markers.some((marker) => lower.includes(marker));
}
