import type { AnthropicMessage } from '../../anthropic/anthropic-messages-wire.ts';
import { buildChatCompletion, chatChoice } from '../../shared/build-chat-completion.ts';
import type { ChatCompletion, ChatToolCall } from '../../shared/chat-completions-wire.ts';
import { idSuffix } from '../shared/unsupported-parameter.ts';
import { chatUsageFromAnthropic } from './chat-usage-from-anthropic.ts';
import { finishReasonFromAnthropic } from './map-anthropic-stop-reason.ts';

/** The chat id for an Anthropic message id: `chatcmpl-` and the upstream's unique part. */
export function chatIdFromMessage(messageId: string): string {
  return `chatcmpl-${idSuffix(messageId, 'msg_')}`;
}

/**
 * Anthropic message -> chat completion: text blocks joined into `content`, tool_use blocks as
 * `tool_calls`. Thinking blocks only come back when asked for, which Chat cannot do.
 */
export function messagesToChatResponse(answer: AnthropicMessage, createdSeconds: number): ChatCompletion {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const block of answer.content) {
    if (block.type === 'text') text += String(block.text ?? '');
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  return buildChatCompletion(
    { id: chatIdFromMessage(answer.id), model: answer.model, created: createdSeconds },
    [chatChoice(0, text, toolCalls, finishReasonFromAnthropic(answer.stop_reason))],
    chatUsageFromAnthropic(answer.usage),
  );
}
