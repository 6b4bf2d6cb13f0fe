import type {
  ChatCompletionRequest,
  UpstreamChatCompletion,
} from '../../../formats/chat-completions/wire.ts';
import type { AnthropicMessagesRequest } from '../../../formats/messages/wire.ts';
import type { OperationTranslator, StreamTranslatorContext } from '../../types.ts';
import { chatToMessagesResponse, type TranslatedMessage } from './answer.ts';
import { messagesToChatRequest } from './request.ts';
import { ChatToMessagesStream } from './stream.ts';

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
  response: (answer: UpstreamChatCompletion, request: AnthropicMessagesRequest) =>
    chatToMessagesResponse(answer, request.stop_sequences),
  createStreamTranslator: (request: AnthropicMessagesRequest, known?: StreamTranslatorContext) =>
    new ChatToMessagesStream(request, known?.inputTokens),
});
