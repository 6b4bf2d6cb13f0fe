/**
 * OpenAI embeddings on Vertex AI's text embedding models (`gemini-embedding-001`,
 * `text-embedding-005`): `:predict` with one instance per input (Vertex AI, "Text embeddings API":
 * `instances[].content`, `parameters.outputDimensionality`; answers
 * `predictions[].embeddings.values` with `statistics.token_count`). The request is checked and the
 * answer built by the Gemini adapter's embeddings code; Vertex, unlike the Gemini API, counts tokens.
 */
import { z } from 'zod';
import {
  type EmbeddingsRequest,
  type EmbeddingsResponse,
  toBatchEmbedContentsRequest,
  toEmbeddingsResponse,
} from '../gemini/gemini-embeddings.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { OperationAdapter } from '../types.ts';
import { vertexModelUrl } from './vertex-config.ts';

const predictAnswerSchema = z.looseObject({
  predictions: z.array(
    z.looseObject({
      embeddings: z.looseObject({
        values: z.array(z.number()),
        statistics: z.looseObject({ token_count: z.number().nonnegative() }).optional(),
      }),
    }),
  ),
});

export const vertexEmbeddingsOperation: OperationAdapter<EmbeddingsRequest, EmbeddingsResponse> = {
  buildRequest({ target, body }) {
    const { requests } = toBatchEmbedContentsRequest(body, target.upstreamModel);
    const dimensions =
      body.dimensions == null ? {} : { parameters: { outputDimensionality: body.dimensions } };
    const instances = requests.map((request) => ({ content: request.content.parts[0].text }));
    return {
      url: vertexModelUrl(target, 'predict'),
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ instances, ...dimensions }),
    };
  },
  parseResponse(body, target, request) {
    const parsed = predictAnswerSchema.safeParse(body);
    if (!parsed.success) throw malformedAnswerError('vertex', 'predict answer', parsed.error.issues);
    const { predictions } = parsed.data;
    const expected =
      request === undefined
        ? predictions.length
        : toBatchEmbedContentsRequest(request, target.upstreamModel).requests.length;
    if (predictions.length !== expected) {
      throw malformedAnswerError('vertex', 'predict answer', 'one prediction per input expected');
    }
    const embeddings = predictions.map((prediction) => ({ values: prediction.embeddings.values }));
    const answer = toEmbeddingsResponse({ embeddings }, target.upstreamModel, request?.encoding_format);
    const tokens = predictions.reduce(
      (sum, prediction) => sum + (prediction.embeddings.statistics?.token_count ?? 0),
      0,
    );
    return { ...answer, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  },
  usageOf: (answer) => ({ inputTokens: answer.usage.prompt_tokens, outputTokens: 0 }),
};
