import type { UpstreamChatUsage } from '../../shared/chat-completions-wire.ts';

export interface AnthropicUsageWire {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Chat counts cached tokens inside `prompt_tokens`; Anthropic counts them apart. */
export function anthropicUsageFromChat(usage: UpstreamChatUsage | null | undefined): AnthropicUsageWire {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: (usage?.prompt_tokens ?? 0) - cached,
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}
