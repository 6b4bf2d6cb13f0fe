import type { ChatFinishReason } from '../../../formats/chat-completions/wire.ts';

/**
 * Anthropic `stop_reason` -> Chat `finish_reason` (the reverse of messages-via-chat/finish-reason.ts).
 * `pause_turn` (Claude paused a long turn and resumes it when the answer comes back as the last
 * assistant turn, Anthropic "Handling stop reasons") is `length`: Chat's one value for an answer
 * that is not finished, which a client continues by sending the answer back; `stop` would tell it
 * the partial answer is final (what LiteLLM and the Vercel AI SDK report, and what the pause is not).
 */
export const STOP_REASON_TO_CHAT_FINISH = Object.freeze({
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'length',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
} as const satisfies Record<string, ChatFinishReason>);

export function finishReasonFromAnthropic(stopReason: string | null | undefined): ChatFinishReason {
  if (stopReason == null) return 'stop';
  return STOP_REASON_TO_CHAT_FINISH[stopReason as keyof typeof STOP_REASON_TO_CHAT_FINISH] ?? 'stop';
}
