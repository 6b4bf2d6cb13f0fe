import type { ChatUsage } from '../../formats/chat-completions/wire.ts';
import type { BedrockTokenUsage } from './bedrock-wire-types.ts';

/**
 * Converse `usage` -> Chat Completions `usage`. Bedrock counts cache reads and writes apart from
 * `inputTokens` (TokenUsage), while OpenAI's `prompt_tokens` includes cached tokens, so they add up.
 * Reads are `cached_tokens`; writes are `cache_write_tokens` (the translators make them Anthropic's
 * `cache_creation_input_tokens`).
 */
export function toChatUsage(usage: BedrockTokenUsage): ChatUsage {
  const read = usage.cacheReadInputTokens;
  const write = usage.cacheWriteInputTokens;
  const prompt = usage.inputTokens + (read ?? 0) + (write ?? 0);
  const cacheUsed = read !== undefined || write !== undefined;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    ...(cacheUsed
      ? {
          prompt_tokens_details: {
            cached_tokens: read ?? 0,
            ...(write === undefined ? {} : { cache_write_tokens: write }),
          },
        }
      : {}),
  };
}
