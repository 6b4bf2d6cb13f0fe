import type { ChatUsage } from '../../formats/chat-completions/wire.ts';
import type { GeminiUsageMetadata } from './gemini-wire-types.ts';

/**
 * Gemini `usageMetadata` -> Chat Completions `usage`. `promptTokenCount` already includes the
 * cached content; thinking tokens are output tokens, as OpenAI's reasoning tokens are part of
 * `completion_tokens`; tool-use prompt tokens are input.
 */
export function toChatUsage(metadata: GeminiUsageMetadata): ChatUsage {
  const prompt = (metadata.promptTokenCount ?? 0) + (metadata.toolUsePromptTokenCount ?? 0);
  const thoughts = metadata.thoughtsTokenCount;
  const completion = (metadata.candidatesTokenCount ?? 0) + (thoughts ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: metadata.totalTokenCount ?? prompt + completion,
    ...(metadata.cachedContentTokenCount === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: metadata.cachedContentTokenCount } }),
    ...(thoughts === undefined ? {} : { completion_tokens_details: { reasoning_tokens: thoughts } }),
  };
}
