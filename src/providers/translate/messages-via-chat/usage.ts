import type { UpstreamChatUsage } from '../../../formats/chat-completions/wire.ts';

export interface AnthropicUsageWire {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/**
 * Chat counts cache reads (`cached_tokens`) and writes (`cache_write_tokens`, set by the Bedrock
 * adapter and OpenRouter) inside `prompt_tokens`; Anthropic's `input_tokens` excludes both.
 */
export function anthropicUsageFromChat(usage: UpstreamChatUsage | null | undefined): AnthropicUsageWire {
  const read = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const written = usage?.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - read - written),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
  };
}
