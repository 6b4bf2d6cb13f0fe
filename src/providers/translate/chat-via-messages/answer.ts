/**
 * An Anthropic answer as a Chat answer: the whole message (messagesToChatResponse) and the parts
 * the stream translator (stream.ts) writes too: the chat id, thinking blocks, the finish reason
 * and the usage.
 */
import { buildChatCompletion, chatChoice } from '../../../formats/chat-completions/build-answer.ts';
import type {
  ChatCompletion,
  ChatFinishReason,
  ChatThinkingBlock,
  ChatToolCall,
  ChatUsage,
} from '../../../formats/chat-completions/wire.ts';
import type { AnthropicUsageCounts } from '../../../formats/messages/usage.ts';
import type { AnthropicMessage } from '../../../formats/messages/wire.ts';
import { idSuffix } from '../shared/unsupported-parameter.ts';
import { JSON_MODE_TOOL } from './json-mode-tool.ts';

/** The chat id for an Anthropic message id: `chatcmpl-` and the upstream's unique part. */
export function chatIdFromMessage(messageId: string): string {
  return `chatcmpl-${idSuffix(messageId, 'msg_')}`;
}

/**
 * Anthropic message -> chat completion: text blocks joined into `content`, tool_use blocks as
 * `tool_calls`, thinking as `reasoning_content` (the de-facto Chat field) with the blocks
 * themselves in `thinking_blocks`, so that a client can send them back on its next turn. In JSON
 * mode the JSON tool's input is the content, and the turn ends with `stop`.
 */
export function messagesToChatResponse(
  answer: AnthropicMessage,
  createdSeconds: number,
  jsonMode = false,
): ChatCompletion {
  let text = '';
  let reasoning = '';
  const thinkingBlocks: ChatThinkingBlock[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of answer.content) {
    if (block.type === 'text') text += String(block.text ?? '');
    else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      const kept = thinkingBlockOf(block);
      thinkingBlocks.push(kept);
      if (kept.type === 'thinking') reasoning += kept.thinking;
    } else if (block.type === 'tool_use' && jsonMode && block.name === JSON_MODE_TOOL) {
      text += JSON.stringify(block.input ?? {});
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const stopReason = jsonMode && answer.stop_reason === 'tool_use' ? 'end_turn' : answer.stop_reason;
  const choice = chatChoice(0, text, toolCalls, finishReasonFromAnthropic(stopReason));
  if (thinkingBlocks.length > 0) {
    choice.message.reasoning_content = reasoning;
    choice.message.thinking_blocks = thinkingBlocks;
  }
  return buildChatCompletion(
    { id: chatIdFromMessage(answer.id), model: answer.model, created: createdSeconds },
    [choice],
    chatUsageFromAnthropic(answer.usage),
  );
}

/** A thinking or redacted_thinking block as Chat's `thinking_blocks` keeps it. */
export function thinkingBlockOf(block: Record<string, unknown>): ChatThinkingBlock {
  if (block.type === 'redacted_thinking')
    return { type: 'redacted_thinking', data: String(block.data ?? '') };
  return {
    type: 'thinking',
    thinking: String(block.thinking ?? ''),
    signature: String(block.signature ?? ''),
  };
}

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
