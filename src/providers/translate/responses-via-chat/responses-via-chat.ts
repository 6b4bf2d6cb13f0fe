import type { ResponsesRequest } from '../../openai/openai-responses-wire.ts';
import type { ChatCompletionRequest, UpstreamChatCompletion } from '../../shared/chat-completions-wire.ts';
import type { OperationTranslator } from '../../types.ts';
import { chatToResponsesResponse } from './chat-to-responses-response.ts';
import { ChatToResponsesStream } from './chat-to-responses-stream.ts';
import { responsesToChatRequest } from './responses-to-chat-request.ts';

/** Serves `responses` through an upstream's `chat.completions` (providers without a Responses API). */
export const responsesViaChat: OperationTranslator<
  ResponsesRequest,
  ChatCompletionRequest,
  Record<string, unknown>,
  UpstreamChatCompletion
> = Object.freeze({
  from: 'responses',
  to: 'chat.completions',
  request: responsesToChatRequest,
  response: chatToResponsesResponse,
  createStreamTranslator: (request: ResponsesRequest) => new ChatToResponsesStream(request),
});
