/**
 * Classifies Gemini API failures (Gemini API, "Troubleshooting: error codes"; google.rpc.Code): by
 * the canonical status name of the error body first, then by HTTP status. Provider wording is kept
 * as `providerMessage` only.
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import { retryAfterSeconds } from '../shared/retry-after.ts';
import {
  BAD_REQUEST,
  CONTEXT_WINDOW,
  classifyUpstreamStatus,
  messageHasMarker,
  OVERLOADED,
  RATE_LIMIT,
  type StatusClassification,
  TIMEOUT,
  UPSTREAM,
  UPSTREAM_AUTH,
  upstreamErrorInfo,
} from '../shared/upstream-status.ts';
import type { UpstreamErrorInfo } from '../types.ts';
import { type GeminiErrorBody, geminiErrorBodySchema } from './gemini-wire-types.ts';

export const GEMINI_STATUSES: Readonly<Record<string, StatusClassification>> = Object.freeze({
  INVALID_ARGUMENT: BAD_REQUEST,
  OUT_OF_RANGE: BAD_REQUEST,
  // "free tier is not available in your country", billing not enabled: the deployment's account, not the request.
  FAILED_PRECONDITION: UPSTREAM,
  UNAUTHENTICATED: UPSTREAM_AUTH,
  PERMISSION_DENIED: UPSTREAM_AUTH,
  NOT_FOUND: UPSTREAM,
  RESOURCE_EXHAUSTED: RATE_LIMIT,
  INTERNAL: UPSTREAM,
  // "The model is overloaded. Please try again later.": the overload class (upstream_overloaded).
  UNAVAILABLE: OVERLOADED,
  DEADLINE_EXCEEDED: TIMEOUT,
});

/** "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)." */
const CONTEXT_MARKERS = [
  'exceeds the maximum number of tokens',
  'input token count',
  'context window',
  'context length',
  'too long',
];
/** A bad key is a 400 INVALID_ARGUMENT whose ErrorInfo reason is API_KEY_INVALID ("API key not valid"). */
const BAD_KEY_MARKERS = ['api key not valid', 'api_key_invalid'];

type Detail = NonNullable<GeminiErrorBody['error']['details']>[number];

/** google.rpc.RetryInfo's `retryDelay`, a google.protobuf.Duration in JSON: `"34s"`, `"1.5s"`. */
function retryDelaySeconds(details: readonly Detail[]): number | undefined {
  for (const detail of details) {
    if (detail['@type'] !== 'type.googleapis.com/google.rpc.RetryInfo') continue;
    const delay = detail.retryDelay;
    if (typeof delay !== 'string' || !delay.endsWith('s')) continue;
    const seconds = Number(delay.slice(0, -1));
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  }
  return undefined;
}

function isBadKey(message: string | undefined, details: readonly Detail[]): boolean {
  return (
    messageHasMarker(message, BAD_KEY_MARKERS) ||
    details.some((detail) => detail.reason === 'API_KEY_INVALID')
  );
}

/** The adapter's `classifyError`, and the classifier of an error event inside a stream. */
export function classifyGeminiError(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
): UpstreamErrorInfo {
  const parsed = geminiErrorBodySchema.safeParse(body);
  const error = parsed.success ? parsed.data.error : undefined;
  const message = error?.message ?? (typeof body === 'string' && body !== '' ? body : undefined);
  const details = error?.details ?? [];
  const canonical = error?.status;
  let outcome =
    canonical !== undefined && Object.hasOwn(GEMINI_STATUSES, canonical)
      ? GEMINI_STATUSES[canonical]
      : classifyUpstreamStatus(status === 0 ? (error?.code ?? 500) : status);
  if (outcome.code === 'invalid_request') {
    if (isBadKey(message, details)) outcome = UPSTREAM_AUTH;
    else if (messageHasMarker(message, CONTEXT_MARKERS)) outcome = CONTEXT_WINDOW;
  }
  return upstreamErrorInfo(outcome, retryDelaySeconds(details) ?? retryAfterSeconds(headers), message);
}

/** A prompt Gemini refused to answer (`promptFeedback.blockReason`): a content policy error a fallback can reroute. */
export function promptBlockedError(blockReason: string): GatewayError {
  return new GatewayError('content_policy_violation', { detail: { provider: 'gemini', blockReason } });
}
