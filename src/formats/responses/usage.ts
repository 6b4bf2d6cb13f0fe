import type { Usage } from '../usage.ts';

export interface ResponsesUsageWire {
  input_tokens: number;
  output_tokens: number;
  input_tokens_details?: { cached_tokens?: number | null } | null;
}

/** Responses (and gpt-image) usage: `input_tokens` includes `cached_tokens`. */
export function usageFromResponses(usage: ResponsesUsageWire | null | undefined): Usage | null {
  if (usage == null) return null;
  const result: Usage = { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
  const cached = usage.input_tokens_details?.cached_tokens;
  if (cached != null && cached > 0) result.cachedInputTokens = cached;
  return result;
}
