import type { AnthropicMessage, AnthropicMessagesRequest } from '../../anthropic/anthropic-messages-wire.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../shared/chat-completions-wire.ts';
import type { OperationTranslator } from '../../types.ts';
import { chatToMessagesRequest } from './chat-to-messages-request.ts';
import { usesJsonModeTool } from './json-mode-tool.ts';
import { messagesToChatResponse } from './messages-to-chat-response.ts';
import { MessagesToChatStream } from './messages-to-chat-stream.ts';

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
