import { buildChatCompletion, chatChoice } from '../../../formats/chat-completions/build-answer.ts';
import type {
  ChatCompletion,
  ChatThinkingBlock,
  ChatToolCall,
} from '../../../formats/chat-completions/wire.ts';
import type { AnthropicMessage } from '../../../formats/messages/wire.ts';
import { idSuffix } from '../shared/unsupported-parameter.ts';
import { finishReasonFromAnthropic } from './finish-reason.ts';
import { JSON_MODE_TOOL } from './json-mode-tool.ts';
import { chatUsageFromAnthropic } from './usage.ts';

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
