import type { ChatCompletionIdentity } from './chat-completion-identity.ts';
import type { ChatCompletion, ChatFinishReason, ChatToolCall, ChatUsage } from './chat-completions-wire.ts';

type ChatChoice = ChatCompletion['choices'][number];

/** One choice: `content` is null for a turn of tool calls only, as OpenAI sends it. */
export function chatChoice(
  index: number,
  text: string,
  toolCalls: ChatToolCall[],
  finishReason: ChatFinishReason,
): ChatChoice {
  return {
    index,
    message: {
      role: 'assistant',
      content: text === '' && toolCalls.length > 0 ? null : text,
      refusal: null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    logprobs: null,
    finish_reason: finishReason,
  };
}

/** A `chat.completion` built from another format's answer. */
export function buildChatCompletion(
  identity: ChatCompletionIdentity,
  choices: ChatChoice[],
  usage: ChatUsage,
): ChatCompletion {
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices,
    usage,
  };
}
