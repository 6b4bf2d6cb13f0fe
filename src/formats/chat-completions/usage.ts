import type { Usage } from '../usage.ts';
import type { ChatUsage, UpstreamChatUsage } from './wire.ts';

/** The gateway's normalised usage of a Chat Completions usage object the adapter built. */
export function normaliseChatUsage(usage: ChatUsage): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
  };
}

/** The Chat Completions usage object of a normalised usage (the inverse of normaliseChatUsage). */
export function chatUsageOf(usage: Usage): ChatUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cachedInputTokens } }),
  };
}

/** An upstream's Chat Completions usage: `prompt_tokens` already includes `cached_tokens`, as Usage wants. */
export function usageFromChat(usage: UpstreamChatUsage | null | undefined): Usage | null {
  if (usage == null) return null;
  const result: Usage = { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (cached != null && cached > 0) result.cachedInputTokens = cached;
  return result;
}
