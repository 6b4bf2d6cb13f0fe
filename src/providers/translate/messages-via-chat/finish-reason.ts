/**
 * Chat `finish_reason` -> Anthropic `stop_reason`. Chat does not say which stop sequence matched,
 * so `stop` is always `end_turn` (stop_sequence stays null).
 */
export const CHAT_FINISH_TO_STOP_REASON = Object.freeze({
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
} as const satisfies Record<string, string>);

export type AnthropicStopReason =
  (typeof CHAT_FINISH_TO_STOP_REASON)[keyof typeof CHAT_FINISH_TO_STOP_REASON];

export function stopReasonFromChat(finishReason: string | null | undefined): AnthropicStopReason {
  if (finishReason == null) return 'end_turn';
  return CHAT_FINISH_TO_STOP_REASON[finishReason as keyof typeof CHAT_FINISH_TO_STOP_REASON] ?? 'end_turn';
}
