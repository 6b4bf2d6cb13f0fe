import type { ChatFinishReason } from '../../../formats/chat-completions/wire.ts';

/** Anthropic `stop_reason` -> Chat `finish_reason` (the reverse of messages-via-chat/finish-reason.ts). */
export const STOP_REASON_TO_CHAT_FINISH = Object.freeze({
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
} as const satisfies Record<string, ChatFinishReason>);

export function finishReasonFromAnthropic(stopReason: string | null | undefined): ChatFinishReason {
  if (stopReason == null) return 'stop';
  return STOP_REASON_TO_CHAT_FINISH[stopReason as keyof typeof STOP_REASON_TO_CHAT_FINISH] ?? 'stop';
}
