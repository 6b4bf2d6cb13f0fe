import type { AnthropicMessagesRequest } from '../../anthropic/anthropic-messages-wire.ts';
import type { ChatCompletionRequest, UpstreamChatCompletion } from '../../shared/chat-completions-wire.ts';
import type { OperationTranslator } from '../../types.ts';
import { chatToMessagesResponse, type TranslatedMessage } from './chat-to-messages-response.ts';
import { ChatToMessagesStream } from './chat-to-messages-stream.ts';
import { messagesToChatRequest } from './messages-to-chat-request.ts';

/** Serves `messages` (an Anthropic client) through an upstream's `chat.completions`. */
export const messagesViaChat: OperationTranslator<
  AnthropicMessagesRequest,
  ChatCompletionRequest,
  TranslatedMessage,
  UpstreamChatCompletion
> = Object.freeze({
  from: 'messages',
  to: 'chat.completions',
  request: messagesToChatRequest,
  response: (answer: UpstreamChatCompletion) => chatToMessagesResponse(answer),
  createStreamTranslator: () => new ChatToMessagesStream(),
});
