import type { ChatCompletion, ChatCompletionRequest } from '../../../formats/chat-completions/wire.ts';
import type { AnthropicMessage, AnthropicMessagesRequest } from '../../../formats/messages/wire.ts';
import type { OperationTranslator } from '../../types.ts';
import { messagesToChatResponse } from './answer.ts';
import { chatToMessagesRequest } from './request.ts';
import { MessagesToChatStream } from './stream.ts';

export interface ChatViaMessagesOptions {
  /** Seconds since the epoch for `created` (Anthropic messages carry no timestamp). */
  nowSeconds?: () => number;
}

/** Serves `chat.completions` (an OpenAI client) through an upstream's `messages`. */
export function createChatViaMessages(
  options: ChatViaMessagesOptions = {},
): OperationTranslator<ChatCompletionRequest, AnthropicMessagesRequest, ChatCompletion, AnthropicMessage> {
  const now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  return Object.freeze({
    from: 'chat.completions',
    to: 'messages',
    request: chatToMessagesRequest,
    response: (answer: AnthropicMessage, request: ChatCompletionRequest) =>
      messagesToChatResponse(answer, now(), usesJsonModeTool(request)),
    createStreamTranslator: (request: ChatCompletionRequest) =>
      new MessagesToChatStream({
        includeUsage: request.stream_options?.include_usage === true,
        createdSeconds: now(),
        jsonMode: usesJsonModeTool(request),
      }),
  } as const);
}

export const chatViaMessages = createChatViaMessages();

/**
 * True when the Chat request asked for JSON mode (json-mode-tool.ts): its answer's tool call is
 * the JSON text.
 */
function usesJsonModeTool(request: ChatCompletionRequest): boolean {
  return request.response_format?.type === 'json_object';
}
