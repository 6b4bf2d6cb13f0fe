import { usageFromResponses } from '../../formats/responses/usage.ts';
import type { OperationAdapter, Usage } from '../types.ts';
import { OPENAI_PATHS } from './openai-config.ts';
import type { OpenAIEndpoint } from './openai-endpoint.ts';
import { openAIJsonAdapter } from './openai-json-adapter.ts';
import { type ImagesResponse, imagesResponseSchema } from './openai-media-wire.ts';
import { openAIMultipartAdapter } from './openai-multipart-adapter.ts';

export interface ImageGenerationRequest {
  model: string;
  prompt: string;
  n?: number | null;
  [key: string]: unknown;
}

/** Images produced, plus tokens when the model reports them (gpt-image). */
export function usageFromImages(answer: ImagesResponse): Usage {
  const usage = usageFromResponses(answer.usage) ?? { inputTokens: 0, outputTokens: 0 };
  return { ...usage, images: answer.data?.length ?? 0 };
}

/** `POST /images/generations` (JSON). */
export function openAIImageGenerationsAdapter(
  endpoint: OpenAIEndpoint,
): OperationAdapter<ImageGenerationRequest, ImagesResponse> {
  return openAIJsonAdapter<ImageGenerationRequest, ImagesResponse>(endpoint, {
    path: OPENAI_PATHS['images.generations'],
    answer: imagesResponseSchema,
    usageOf: usageFromImages,
  });
}

/** `POST /images/edits` (multipart). */
export function openAIImageEditsAdapter(
  endpoint: OpenAIEndpoint,
): OperationAdapter<unknown, ImagesResponse | string> {
  return openAIMultipartAdapter(endpoint, {
    path: OPENAI_PATHS['images.edits'],
    answer: imagesResponseSchema,
    usageOf: usageFromImages,
    textAnswers: false,
  });
}

/** `POST /images/variations` (multipart, dall-e-2). */
export function openAIImageVariationsAdapter(
  endpoint: OpenAIEndpoint,
): OperationAdapter<unknown, ImagesResponse | string> {
  return openAIMultipartAdapter(endpoint, {
    path: OPENAI_PATHS['images.variations'],
    answer: imagesResponseSchema,
    usageOf: usageFromImages,
    textAnswers: false,
  });
}
