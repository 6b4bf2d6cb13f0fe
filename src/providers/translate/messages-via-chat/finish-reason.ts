import { matchedStopString } from '../../../formats/chat-completions/wire.ts';

/**
 * Chat `finish_reason` -> Anthropic `stop_reason`. `stop` is `end_turn` unless the upstream said
 * which of the request's stop sequences ended the answer (vLLM's `stop_reason`, which the gateway
 * also writes for Bedrock's Converse): then `stop_sequence`, with the string (anthropicStopOf).
 */
export const CHAT_FINISH_TO_STOP_REASON = Object.freeze({
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
} as const satisfies Record<string, string>);

export type AnthropicStopReason =
  | (typeof CHAT_FINISH_TO_STOP_REASON)[keyof typeof CHAT_FINISH_TO_STOP_REASON]
  | 'stop_sequence';

export function stopReasonFromChat(finishReason: string | null | undefined): AnthropicStopReason {
  if (finishReason == null) return 'end_turn';
  return CHAT_FINISH_TO_STOP_REASON[finishReason as keyof typeof CHAT_FINISH_TO_STOP_REASON] ?? 'end_turn';
}

export interface AnthropicStop {
  stop_reason: AnthropicStopReason;
  stop_sequence: string | null;
}

/** The stop of a finished choice, given the request's `stop_sequences`. */
export function anthropicStopOf(
  choice: { finish_reason?: string | null; stop_reason?: string | number | null },
  requested: readonly string[] | undefined,
): AnthropicStop {
  const matched = matchedStopString(choice, requested);
  if (matched !== undefined) return { stop_reason: 'stop_sequence', stop_sequence: matched };
  return { stop_reason: stopReasonFromChat(choice.finish_reason), stop_sequence: null };
}
