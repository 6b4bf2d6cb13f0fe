import type { OperationAdapter } from '../types.ts';
import { OPENAI_PATHS } from './openai-config.ts';
import type { OpenAIEndpoint } from './openai-endpoint.ts';
import { openAIJsonAdapter } from './openai-json-adapter.ts';
import { type EmbeddingsResponse, embeddingsResponseSchema } from './openai-media-wire.ts';

export interface EmbeddingsRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  [key: string]: unknown;
}

/** `POST /embeddings`: input tokens only. */
export function openAIEmbeddingsAdapter(
  endpoint: OpenAIEndpoint,
): OperationAdapter<EmbeddingsRequest, EmbeddingsResponse> {
  return openAIJsonAdapter<EmbeddingsRequest, EmbeddingsResponse>(endpoint, {
    path: OPENAI_PATHS.embeddings,
    answer: embeddingsResponseSchema,
    usageOf: (answer) =>
      answer.usage == null ? null : { inputTokens: answer.usage.prompt_tokens, outputTokens: 0 },
  });
}
