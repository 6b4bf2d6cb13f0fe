import { buildChatCompletion, chatChoice } from '../shared/build-chat-completion.ts';
import type { ChatCompletionIdentity } from '../shared/chat-completion-identity.ts';
import type { ChatCompletion, ChatToolCall } from '../shared/chat-completions-wire.ts';
import { type BedrockAnswerMode, toolUseRole } from './bedrock-answer-mode.ts';
import { toChatUsage } from './bedrock-usage.ts';
import type { BedrockConverseResponse } from './bedrock-wire-types.ts';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.ts';

const PLAIN: BedrockAnswerMode = { callsForbidden: false, jsonTool: false };

/**
 * A Converse answer as a `chat.completion` (one choice: Converse has no candidate count).
 * `reasoningContent` text becomes `reasoning_content`; redacted reasoning has no readable form.
 */
export function toChatCompletion(
  response: BedrockConverseResponse,
  identity: ChatCompletionIdentity,
  mode: BedrockAnswerMode = PLAIN,
): ChatCompletion {
  let text = '';
  let reasoning = '';
  let json = false;
  const toolCalls: ChatToolCall[] = [];
  for (const block of response.output.message.content) {
    if (block.text !== undefined) text += block.text;
    else if (block.reasoningContent?.reasoningText) reasoning += block.reasoningContent.reasoningText.text;
    else if (block.toolUse) {
      const input = JSON.stringify(block.toolUse.input ?? {});
      if (toolUseRole(mode, block.toolUse.name) === 'json') {
        // The JSON tool's input is the answer; text the model wrote around it is not.
        text = input;
        json = true;
        break;
      }
      toolCalls.push({
        id: block.toolUse.toolUseId,
        type: 'function',
        function: { name: block.toolUse.name, arguments: input },
      });
    }
    // Citations and other blocks have no Chat Completions field.
  }
  const finishReason = json ? 'stop' : mapBedrockStopReason(response.stopReason);
  return buildChatCompletion(
    identity,
    [chatChoice(0, text, toolCalls, finishReason, { reasoning })],
    toChatUsage(response.usage ?? { inputTokens: 0, outputTokens: 0 }),
  );
}
