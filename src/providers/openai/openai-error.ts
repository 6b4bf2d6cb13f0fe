import { retryAfterSeconds } from '../shared/retry-after.ts';
import {
  CONTENT_POLICY,
  CONTEXT_WINDOW,
  classifyUpstreamStatus,
  messageHasMarker,
  RATE_LIMIT,
  type StatusClassification,
  UPSTREAM,
  UPSTREAM_AUTH,
  upstreamErrorInfo,
} from '../shared/upstream-status.ts';
import type { UpstreamErrorInfo } from '../types.ts';
import { readOpenAIError } from './openai-error-wire.ts';

/**
 * Error codes that refine a 4xx (OpenAI API reference, "Error codes"; Azure OpenAI, "Content
 * filtering": code `content_filter`). `insufficient_quota` is a 429 about the deployment's
 * account, not a passing limit: a server-class failure so that fallback moves on.
 */
export const OPENAI_ERROR_CODES: Readonly<Record<string, StatusClassification>> = Object.freeze({
  context_length_exceeded: CONTEXT_WINDOW,
  string_above_max_length: CONTEXT_WINDOW,
  content_policy_violation: CONTENT_POLICY,
  content_filter: CONTENT_POLICY,
  moderation_blocked: CONTENT_POLICY,
  insufficient_quota: UPSTREAM,
  invalid_api_key: UPSTREAM_AUTH,
});

/**
 * Compatible servers (vLLM, Ollama, llama.cpp) often send no code: their context-window messages
 * are recognised by wording. Lower case; matched as substrings.
 */
export const OPENAI_CONTEXT_WINDOW_MARKERS: readonly string[] = Object.freeze([
  'maximum context length',
  'context length exceeded',
  'context_length_exceeded',
  'exceeds the context window',
  'prompt is too long',
  'input is too long',
]);

/** Classifies a non-2xx answer of OpenAI, Azure OpenAI or an OpenAI-compatible server. */
export function classifyOpenAIError(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>,
): UpstreamErrorInfo {
  const detail = readOpenAIError(body);
  let classification = classifyUpstreamStatus(status);
  if (status >= 400 && status < 500) {
    const byCode = detail.code === undefined ? undefined : OPENAI_ERROR_CODES[detail.code];
    if (byCode !== undefined) classification = byCode;
    else if (
      classification.errorClass === 'bad_request' &&
      messageHasMarker(detail.message, OPENAI_CONTEXT_WINDOW_MARKERS)
    ) {
      classification = CONTEXT_WINDOW;
    }
  }
  // Kept whatever the class: a 503 with Retry-After is a hint for the deployment's cooldown too.
  return upstreamErrorInfo(classification, retryAfterSeconds(headers), detail.message, detail);
}

/**
 * Classifies an error delivered inside a stream (a chunk `{"error": ...}`, or a Responses
 * `error` / `response.failed` event), where there is no HTTP status.
 */
export function classifyOpenAIStreamError(
  code: string | undefined,
  message: string | undefined,
): UpstreamErrorInfo {
  const byCode = code === undefined ? undefined : OPENAI_ERROR_CODES[code];
  let outcome = UPSTREAM;
  if (byCode !== undefined) outcome = byCode;
  else if (code === 'rate_limit_exceeded') outcome = RATE_LIMIT;
  else if (messageHasMarker(message, OPENAI_CONTEXT_WINDOW_MARKERS)) outcome = CONTEXT_WINDOW;
  return upstreamErrorInfo(outcome, undefined, message);
}
