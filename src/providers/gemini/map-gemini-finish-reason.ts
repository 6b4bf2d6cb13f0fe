import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChatFinishReason } from '../../formats/chat-completions/wire.ts';

/**
 * Gemini `Candidate.finishReason` (API reference: FinishReason) -> Chat Completions `finish_reason`.
 * Every block on content grounds (language included) is `content_filter`. The other reasons are
 * failures with no Chat equivalent: `MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL`,
 * `TOO_MANY_TOOL_CALLS`, `MISSING_THOUGHT_SIGNATURE`, `OTHER`, `NO_IMAGE`, `IMAGE_OTHER`,
 * `FINISH_REASON_UNSPECIFIED`, and any reason Google adds later. Reporting them as `stop` would end
 * an agent loop on an empty turn, so they are a 502 `upstream_generation_failed` (an error event in
 * a stream) naming the reason in the record's detail.
 */
export const GEMINI_FINISH_REASONS = Object.freeze({
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  LANGUAGE: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
} satisfies Record<string, ChatFinishReason>);

/** A candidate that ended in failure rather than an answer. */
export function generationFailedError(finishReason: string): GatewayError {
  return new GatewayError('upstream_generation_failed', { detail: { provider: 'gemini', finishReason } });
}

/**
 * A candidate that called functions and stopped normally finished for `tool_calls`. A non-streamed
 * candidate without a reason reads as `stop`; a failure reason throws (see above).
 */
export function mapGeminiFinishReason(
  finishReason: string | undefined,
  calledFunctions: boolean,
): ChatFinishReason {
  if (finishReason === undefined) return calledFunctions ? 'tool_calls' : 'stop';
  if (!Object.hasOwn(GEMINI_FINISH_REASONS, finishReason)) throw generationFailedError(finishReason);
  const mapped = GEMINI_FINISH_REASONS[finishReason as keyof typeof GEMINI_FINISH_REASONS];
  return mapped === 'stop' && calledFunctions ? 'tool_calls' : mapped;
}
