import type { ErrorClass } from '../../errors/error-classes.ts';
import type { ErrorCode } from '../../errors/error-codes.ts';
import { publicUpstreamCode } from '../../errors/upstream-codes.ts';
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
 * A transient overload (Anthropic 529 `overloaded_error`, any 503, Gemini `UNAVAILABLE`, Bedrock
 * `ServiceUnavailableException`): retried and rerouted like any upstream failure.
 */
export const OVERLOADED: StatusClassification = Object.freeze({
  errorClass: 'server',
  code: 'upstream_overloaded',
});
/** The body is over the upstream's size limit: the client's to fix, answered 413. */
export const REQUEST_TOO_LARGE: StatusClassification = Object.freeze({
  errorClass: 'bad_request',
  code: 'request_too_large',
});

/**
 * How an upstream HTTP status maps onto SPEC.md's classes before any provider-specific code is
 * read. 401/403 are the deployment's credential, not the client's: a server-class failure an
 * operator must fix, and one a fallback can route around. 404 means the deployment points at a
 * model or path the upstream does not have: also the deployment's fault. 503 is a service that
 * cannot take the call now (OpenAI's "The engine is currently overloaded" and "Slow Down"): the
 * overload class, which Anthropic clients see as their 529 and back off on.
 */
export const UPSTREAM_STATUS_TABLE: Readonly<Record<number, StatusClassification>> = Object.freeze({
  400: BAD_REQUEST,
  401: UPSTREAM_AUTH,
  403: UPSTREAM_AUTH,
  404: UPSTREAM,
  408: TIMEOUT,
  413: REQUEST_TOO_LARGE,
  422: BAD_REQUEST,
  429: RATE_LIMIT,
  503: OVERLOADED,
  504: TIMEOUT,
  529: OVERLOADED,
});

/** The classification of a status alone; anything unlisted is an upstream failure. */
export function classifyUpstreamStatus(status: number): StatusClassification {
  return UPSTREAM_STATUS_TABLE[status] ?? UPSTREAM;
}

/** What a provider's error body names besides its message: the field at fault and its own code. */
export interface UpstreamErrorFields {
  param?: string;
  code?: string;
}

/**
 * The classified failure, with the upstream's wait hint and its wording (private detail) when it
 * gave them. A bad request keeps the field the upstream named and its code when that is a
 * documented one; a context-window refusal, the token counts its wording gives.
 */
export function upstreamErrorInfo(
  outcome: StatusClassification,
  retryAfterSeconds: number | undefined,
  providerMessage: string | undefined,
  fields: UpstreamErrorFields = {},
): UpstreamErrorInfo {
  const info: UpstreamErrorInfo = { errorClass: outcome.errorClass, code: outcome.code };
  if (retryAfterSeconds !== undefined) info.retryAfterSeconds = retryAfterSeconds;
  if (providerMessage !== undefined) info.providerMessage = providerMessage;
  if (outcome.errorClass === 'bad_request' || outcome.errorClass === 'context_window') {
    if (fields.param !== undefined && fields.param !== '') info.param = fields.param;
  }
  const upstreamCode = outcome === BAD_REQUEST ? publicUpstreamCode(fields.code) : undefined;
  if (upstreamCode !== undefined) info.upstreamCode = upstreamCode;
  const counts = outcome.errorClass === 'context_window' ? contextWindowCounts(providerMessage) : null;
  if (counts !== null) info.tokenCounts = counts;
  return info;
}

/**
 * The token counts of a context-window refusal's wording: Anthropic's `prompt is too long: 208310
 * tokens > 200000 maximum` and `input length and \`max_tokens\` exceed context limit: 188240 +
 * 21333 > 200000`, OpenAI's `maximum context length is 128000 tokens. However, your messages
 * resulted in 130000 tokens`. Numbers only: the wording itself stays private.
 */
export function contextWindowCounts(
  message: string | undefined,
): { inputTokens: number; limitTokens: number; outputTokens?: number } | null {
  if (message === undefined) return null;
  const withOutput = /exceed context limit: (\d+) \+ (\d+) > (\d+)/.exec(message);
  if (withOutput !== null) {
    const [inputTokens, outputTokens, limitTokens] = withOutput.slice(1).map(Number);
    return { inputTokens, outputTokens, limitTokens };
  }
  const anthropic = /(\d+) tokens > (\d+) maximum/.exec(message);
  if (anthropic !== null) return { inputTokens: Number(anthropic[1]), limitTokens: Number(anthropic[2]) };
  const openai = /maximum context length is (\d+) tokens[^\d]+?(\d+) tokens/i.exec(message);
  if (openai !== null) return { inputTokens: Number(openai[2]), limitTokens: Number(openai[1]) };
  return null;
}

/** Case-insensitive search of a provider's message for any of the given markers. */
export function messageHasMarker(message: string | undefined, markers: readonly string[]): boolean {
  if (message === undefined) return false;
  const lower = message.toLowerCase();
  return markers.some((marker) => lower.includes(marker));
}
