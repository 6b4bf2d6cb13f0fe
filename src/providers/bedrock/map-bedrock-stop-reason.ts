import type { ChatFinishReason } from '../shared/chat-completions-wire.ts';

/**
 * Converse `stopReason` (Bedrock API Reference: ConverseOutput / MessageStopEvent) -> Chat
 * Completions `finish_reason`. A reason added later by AWS reads as `stop`.
 */
export const BEDROCK_STOP_REASONS = Object.freeze({
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  // The model ran into its context window while generating: the answer is cut, as with max_tokens.
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
} satisfies Record<string, ChatFinishReason>);

export function mapBedrockStopReason(stopReason: string): ChatFinishReason {
  return Object.hasOwn(BEDROCK_STOP_REASONS, stopReason)
    ? BEDROCK_STOP_REASONS[stopReason as keyof typeof BEDROCK_STOP_REASONS]
    : 'stop';
}
