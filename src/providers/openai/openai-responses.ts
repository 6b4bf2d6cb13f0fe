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

/** `POST /responses`: usage always arrives with the response (or its `response.completed` event). */
export function openAIResponsesAdapter(
  endpoint: OpenAIEndpoint,
): OperationAdapter<ResponsesRequest, ResponseObject> {
  return openAIJsonAdapter<ResponsesRequest, ResponseObject>(endpoint, {
    path: OPENAI_PATHS.responses,
    answer: responseObjectSchema,
    usageOf: (answer) => usageFromResponses(answer.usage),
    createStreamDecoder: (target) => new OpenAIResponsesStreamDecoder(target.provider),
  });
}
