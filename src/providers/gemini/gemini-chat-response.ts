import { buildChatCompletion, chatChoice } from '../../formats/chat-completions/build-answer.ts';
import type { ChatCompletionIdentity } from '../../formats/chat-completions/identity.ts';
import type { ChatCompletion } from '../../formats/chat-completions/wire.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import { promptBlockedError } from './gemini-error.ts';
import { toChatLogprobs } from './gemini-logprobs.ts';
import { toChatUsage } from './gemini-usage.ts';
import type { GeminiGenerateContentResponse } from './gemini-wire-types.ts';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.ts';
import { readGeminiParts } from './read-gemini-parts.ts';

export interface GeminiAnswerOptions {
  /**
   * The client sent `parallel_tool_calls: false`. Gemini has no such switch, so the gateway keeps
   * the first function call of each candidate and drops the rest.
   */
  singleToolCall?: boolean;
}

/** A generateContent answer as a `chat.completion`: one choice per candidate. */
export function toChatCompletion(
  response: GeminiGenerateContentResponse,
  identity: ChatCompletionIdentity,
  options: GeminiAnswerOptions = {},
): ChatCompletion {
  const blockReason = response.promptFeedback?.blockReason;
  if (blockReason) throw promptBlockedError(blockReason);
  const candidates = response.candidates ?? [];
  if (candidates.length === 0)
    throw malformedAnswerError('gemini', 'generateContent answer', 'no candidates');
  return buildChatCompletion(
    identity,
    candidates.map((candidate, position) => {
      const read = readGeminiParts(candidate.content?.parts ?? []);
      const toolCalls = options.singleToolCall === true ? read.toolCalls.slice(0, 1) : read.toolCalls;
      const finishReason = mapGeminiFinishReason(candidate.finishReason, toolCalls.length > 0);
      return chatChoice(candidate.index ?? position, read.text, toolCalls, finishReason, {
        reasoning: read.reasoning,
        logprobs: toChatLogprobs(candidate.logprobsResult),
      });
    }),
    toChatUsage(response.usageMetadata ?? {}),
  );
}
