import type { ChatUsage } from '../../../formats/chat-completions/wire.ts';
import type { AnthropicUsageCounts } from '../../../formats/messages/usage.ts';

/**
 * Anthropic's three input counts summed into `prompt_tokens`, cache reads as `cached_tokens` and
 * writes as `cache_write_tokens` (OpenRouter's field), as the Bedrock adapter reports Converse's:
 * a Chat client sees cache writes the same way on every route.
 */
export function chatUsageFromAnthropic(usage: AnthropicUsageCounts): ChatUsage {
  const cached = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  const prompt = usage.input_tokens + cached + written;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: cached, ...(written > 0 ? { cache_write_tokens: written } : {}) },
  };
}
