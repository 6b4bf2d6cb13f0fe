import { anthropicErrorBodySchema } from '../../formats/messages/wire.ts';
import { retryAfterSeconds } from '../shared/retry-after.ts';
import {
  BAD_REQUEST,
  CONTEXT_WINDOW,
  classifyUpstreamStatus,
  messageHasMarker,
  OVERLOADED,
  RATE_LIMIT,
  REQUEST_TOO_LARGE,
  type StatusClassification,
  TIMEOUT,
  UPSTREAM,
  UPSTREAM_AUTH,
  upstreamErrorInfo,
} from '../shared/upstream-status.ts';
import type { UpstreamErrorInfo } from '../types.ts';

/**
 * Anthropic's error types (API reference, "Errors"). authentication and permission errors are the
 * deployment's key, not the client's; `overloaded_error` (529) is a transient upstream failure,
 * kept as such so that an Anthropic client sees 529 `overloaded_error` (and backs off) when every
 * attempt failed on it.
 */
export const ANTHROPIC_ERROR_TYPES: Readonly<Record<string, StatusClassification>> = Object.freeze({
  invalid_request_error: BAD_REQUEST,
  authentication_error: UPSTREAM_AUTH,
  permission_error: UPSTREAM_AUTH,
  not_found_error: UPSTREAM,
  request_too_large: REQUEST_TOO_LARGE,
  rate_limit_error: RATE_LIMIT,
  api_error: UPSTREAM,
  overloaded_error: OVERLOADED,
  timeout_error: TIMEOUT,
});

/** The wording of Anthropic's context-window refusals (lower case, matched as substrings). */
export const ANTHROPIC_CONTEXT_WINDOW_MARKERS: readonly string[] = Object.freeze([
  'prompt is too long',
  'exceed context limit',
  'context window',
]);

/**
 * Classifies a non-2xx Anthropic answer. The body's error type wins over the status (a 400 is
 * always invalid_request_error, but a proxy may answer 500 for an overload); an unreadable body
 * falls back to the status table.
 */
export function classifyAnthropicError(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
): UpstreamErrorInfo {
  const parsed = anthropicErrorBodySchema.safeParse(body);
  const type = parsed.success ? parsed.data.error.type : undefined;
  const message = parsed.success
    ? (parsed.data.error.message ?? undefined)
    : typeof body === 'string'
      ? body
      : undefined;
  return classifyAnthropicErrorType(type, message, status, headers);
}

/** Classifies an error by type: also used for the `error` event of a stream, which has no status. */
export function classifyAnthropicErrorType(
  type: string | undefined,
  message: string | undefined,
  status: number | undefined,
  headers: Readonly<Record<string, string>> = {},
): UpstreamErrorInfo {
  let classification =
    (type === undefined ? undefined : ANTHROPIC_ERROR_TYPES[type]) ??
    (status === undefined ? UPSTREAM : classifyUpstreamStatus(status));
  if (
    classification.errorClass === 'bad_request' &&
    messageHasMarker(message, ANTHROPIC_CONTEXT_WINDOW_MARKERS)
  ) {
    classification = CONTEXT_WINDOW;
  }
  return upstreamErrorInfo(classification, retryAfterSeconds(headers), message);
}
