import type { ChatUsage } from '../shared/chat-completions-wire.ts';
import type { BedrockTokenUsage } from './bedrock-wire-types.ts';

/**
 * Converse `usage` -> Chat Completions `usage`. Bedrock counts cache reads and writes apart from
 * `inputTokens` (TokenUsage), while OpenAI's `prompt_tokens` includes cached tokens, so they add up.
 */
export function toChatUsage(usage: BedrockTokenUsage): ChatUsage {
  const cached = usage.cacheReadInputTokens ?? 0;
  const prompt = usage.inputTokens + cached + (usage.cacheWriteInputTokens ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    ...(usage.cacheReadInputTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
  };
}
