import { buildChatCompletion, chatChoice } from '../shared/build-chat-completion.ts';
import type { ChatCompletionIdentity } from '../shared/chat-completion-identity.ts';
import type { ChatCompletion, ChatToolCall } from '../shared/chat-completions-wire.ts';
import { toChatUsage } from './bedrock-usage.ts';
import type { BedrockConverseResponse } from './bedrock-wire-types.ts';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.ts';

/** A Converse answer as a `chat.completion` (one choice: Converse has no candidate count). */
export function toChatCompletion(
  response: BedrockConverseResponse,
  identity: ChatCompletionIdentity,
): ChatCompletion {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const block of response.output.message.content) {
    if (block.text !== undefined) text += block.text;
    else if (block.toolUse) {
      toolCalls.push({
        id: block.toolUse.toolUseId,
        type: 'function',
        function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) },
      });
    }
    // reasoningContent, citations and other blocks have no Chat Completions field.
  }
  return buildChatCompletion(
    identity,
    [chatChoice(0, text, toolCalls, mapBedrockStopReason(response.stopReason))],
    toChatUsage(response.usage ?? { inputTokens: 0, outputTokens: 0 }),
  );
}
