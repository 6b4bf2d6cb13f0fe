import type { ChatCompletionIdentity } from './identity.ts';
import type {
  ChatCompletion,
  ChatFinishReason,
  ChatLogprobs,
  ChatThinkingBlock,
  ChatToolCall,
  ChatUsage,
} from './wire.ts';

type ChatChoice = ChatCompletion['choices'][number];

/** What some upstreams add to a choice: the model's reasoning (and Claude's signed blocks), log probabilities. */
export interface ChatChoiceExtras {
  reasoning?: string;
  thinkingBlocks?: ChatThinkingBlock[];
  logprobs?: ChatLogprobs | null;
  /** The stop sequence that ended the answer, when the upstream said which (wire.ts, `stop_reason`). */
  stopSequence?: string;
}

/** One choice: `content` is null for a turn of tool calls only, as OpenAI sends it. */
export function chatChoice(
  index: number,
  text: string,
  toolCalls: ChatToolCall[],
  finishReason: ChatFinishReason,
  extras: ChatChoiceExtras = {},
): ChatChoice {
  return {
    index,
    message: {
      role: 'assistant',
      content: text === '' && toolCalls.length > 0 ? null : text,
      refusal: null,
      ...(extras.reasoning ? { reasoning_content: extras.reasoning } : {}),
      ...(extras.thinkingBlocks?.length ? { thinking_blocks: extras.thinkingBlocks } : {}),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    logprobs: extras.logprobs ?? null,
    finish_reason: finishReason,
    ...(extras.stopSequence !== undefined ? { stop_reason: extras.stopSequence } : {}),
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
