import { usageFromResponses } from '../../formats/responses/usage.ts';
import {
  type ResponseObject,
  type ResponsesRequest,
  responseObjectSchema,
} from '../../formats/responses/wire.ts';
import type { OperationAdapter } from '../types.ts';
import { OPENAI_PATHS } from './openai-config.ts';
import type { OpenAIEndpoint } from './openai-endpoint.ts';
import { openAIJsonAdapter } from './openai-json-adapter.ts';
import { OpenAIResponsesStreamDecoder } from './openai-responses-stream-decoder.ts';
import { statelessResponsesBody } from './stateless-responses.ts';

/**
 * `POST /responses`: usage always arrives with the response (or its `response.completed` event).
 * The call is stateless (stateless-responses.ts): the gateway keeps the conversation.
 */
export function openAIResponsesAdapter(
  endpoint: OpenAIEndpoint,
): OperationAdapter<ResponsesRequest, ResponseObject> {
  return openAIJsonAdapter<ResponsesRequest, ResponseObject>(endpoint, {
    path: OPENAI_PATHS.responses,
    answer: responseObjectSchema,
    usageOf: (answer) => usageFromResponses(answer.usage),
    prepare: (body, _stream, target) => statelessResponsesBody(body, target),
    createStreamDecoder: (target, { publicModel, passedOn }) =>
      new OpenAIResponsesStreamDecoder(target.provider, publicModel, passedOn === true),
  });
}
