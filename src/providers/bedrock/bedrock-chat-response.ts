import { buildChatCompletion, chatChoice } from '../../formats/chat-completions/build-answer.ts';
import type { ChatCompletionIdentity } from '../../formats/chat-completions/identity.ts';
import type { ChatCompletion, ChatThinkingBlock, ChatToolCall } from '../../formats/chat-completions/wire.ts';
import { type BedrockAnswerMode, toolUseRole } from './bedrock-answer-mode.ts';
import { matchedStopSequence } from './bedrock-stop-sequence.ts';
import { toChatUsage } from './bedrock-usage.ts';
import type { BedrockConverseResponse } from './bedrock-wire-types.ts';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.ts';

const PLAIN: BedrockAnswerMode = { callsForbidden: false, jsonTool: false };

/**
 * A Converse answer as a `chat.completion` (one choice: Converse has no candidate count).
 * `reasoningContent` text becomes `reasoning_content`, and every reasoning block is kept whole in
 * `thinking_blocks` (LiteLLM's field) for the client to send back: Claude wants its signed thinking
 * again on the next turn of a tool loop (see convert-to-bedrock-messages.ts). The stop sequence that
 * ended the answer, when known, is the choice's `stop_reason` (bedrock-stop-sequence.ts).
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
  const thinkingBlocks: ChatThinkingBlock[] = [];
  for (const block of response.output.message.content) {
    if (block.text !== undefined) text += block.text;
    else if (block.reasoningContent) {
      const { reasoningText, redactedContent } = block.reasoningContent;
      if (reasoningText) {
        reasoning += reasoningText.text;
        thinkingBlocks.push({
          type: 'thinking',
          thinking: reasoningText.text,
          signature: reasoningText.signature,
        });
      } else if (redactedContent) thinkingBlocks.push({ type: 'redacted_thinking', data: redactedContent });
    } else if (block.toolUse) {
      const input = JSON.stringify(block.toolUse.input ?? {});
      if (toolUseRole(mode, block.toolUse.name) === 'json') {
        // The JSON tool's input is the answer; text the model wrote around it is not.
        text = input;
        json = true;
        break;
      }
      if (mode.singleToolCall && toolCalls.length > 0) continue;
      toolCalls.push({
        id: block.toolUse.toolUseId,
        type: 'function',
        function: { name: block.toolUse.name, arguments: input },
      });
    }
    // Citations and other blocks have no Chat Completions field.
  }
  const finishReason = json ? 'stop' : mapBedrockStopReason(response.stopReason);
  const stopSequence = matchedStopSequence(
    response.stopReason,
    response.additionalModelResponseFields,
    mode.stopSequences ?? [],
  );
  return buildChatCompletion(
    identity,
    [chatChoice(0, text, toolCalls, finishReason, { reasoning, thinkingBlocks, stopSequence })],
    toChatUsage(response.usage ?? { inputTokens: 0, outputTokens: 0 }),
  );
}
