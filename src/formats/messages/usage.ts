import type { Usage } from '../usage.ts';

export interface AnthropicUsageCounts {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/**
 * Anthropic counts cache reads and cache writes apart from `input_tokens` (API reference, "Prompt
 * caching": tracking cache performance); Usage.inputTokens is all input, cached included.
 */
export function usageFromAnthropic(usage: AnthropicUsageCounts): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const result: Usage = {
    inputTokens: usage.input_tokens + cacheRead + cacheWrite,
    outputTokens: usage.output_tokens,
  };
  if (cacheRead > 0) result.cachedInputTokens = cacheRead;
  return result;
}
