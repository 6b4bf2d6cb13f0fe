import type { ChatFinishReason } from '../shared/chat-completions-wire.ts';

/**
 * Gemini `Candidate.finishReason` (API reference: FinishReason) -> Chat Completions `finish_reason`.
 * Every block on content grounds is `content_filter`; a reason added later by Google reads as `stop`.
 */
export const GEMINI_FINISH_REASONS = Object.freeze({
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
} satisfies Record<string, ChatFinishReason>);

/** A candidate that called functions and stopped normally finished for `tool_calls`. */
export function mapGeminiFinishReason(
  finishReason: string | undefined,
  calledFunctions: boolean,
): ChatFinishReason {
  const mapped =
    finishReason !== undefined && Object.hasOwn(GEMINI_FINISH_REASONS, finishReason)
      ? GEMINI_FINISH_REASONS[finishReason as keyof typeof GEMINI_FINISH_REASONS]
      : 'stop';
  return mapped === 'stop' && calledFunctions ? 'tool_calls' : mapped;
}
