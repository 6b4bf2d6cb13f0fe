import type {
  ChatCompletionRequest,
  UpstreamChatCompletion,
} from '../../../formats/chat-completions/wire.ts';
import type { ResponsesRequest } from '../../../formats/responses/wire.ts';
import type { OperationTranslator } from '../../types.ts';
import { chatToResponsesResponse } from './answer.ts';
import { responsesToChatRequest } from './request.ts';
import { ChatToResponsesStream } from './stream.ts';

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
