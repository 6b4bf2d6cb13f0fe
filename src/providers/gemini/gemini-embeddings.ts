/**
 * OpenAI embeddings served by Gemini `batchEmbedContents` (API reference: BatchEmbedContentsRequest,
 * EmbedContentRequest, ContentEmbedding): one EmbedContentRequest per input string, in order.
 * `dimensions` is `outputDimensionality`; `encoding_format: "base64"` (the OpenAI SDKs' default) is
 * produced here as OpenAI does it, little-endian float32 bytes in base64, since Gemini returns floats.
 */
import { unsupportedParameter } from '../shared/unsupported-parameter.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { OperationAdapter } from '../types.ts';
import { geminiHeaders, geminiModelName, geminiUrl } from './gemini-config.ts';
import {
  type GeminiBatchEmbedContentsRequest,
  type GeminiBatchEmbedContentsResponse,
  geminiBatchEmbedContentsResponseSchema,
} from './gemini-wire-types.ts';

export interface EmbeddingsRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: 'float' | 'base64' | null;
  dimensions?: number | null;
  [parameter: string]: unknown;
}

export interface EmbeddingsResponse {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  /** Gemini reports no token counts for embeddings: zeros here, and usageOf gives null. */
  usage: { prompt_tokens: number; total_tokens: number };
}

const HANDLED = new Set(['model', 'input', 'encoding_format', 'dimensions']);
const IGNORED = new Set(['user']);

function inputs(input: EmbeddingsRequest['input']): string[] {
  const list = typeof input === 'string' ? [input] : input;
  if (!list.every((item) => typeof item === 'string')) {
    throw unsupportedParameter('input', 'Token arrays are not supported by this model: send text.');
  }
  return list as string[];
}

export function toBatchEmbedContentsRequest(
  body: EmbeddingsRequest,
  upstreamModel: string,
): GeminiBatchEmbedContentsRequest {
  for (const name of Object.keys(body)) {
    if (!HANDLED.has(name) && !IGNORED.has(name) && body[name] !== undefined && body[name] !== null) {
      throw unsupportedParameter(name, `The parameter ${name} is not supported by this model.`);
    }
  }
  if (body.encoding_format != null && body.encoding_format !== 'float' && body.encoding_format !== 'base64') {
    throw unsupportedParameter('encoding_format', 'encoding_format must be float or base64.');
  }
  const model = geminiModelName(upstreamModel);
  return {
    requests: inputs(body.input).map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(body.dimensions == null ? {} : { outputDimensionality: body.dimensions }),
    })),
  };
}

function base64Float32(values: readonly number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  for (const [i, value] of values.entries()) bytes.writeFloatLE(value, i * 4);
  return bytes.toString('base64');
}

export function toEmbeddingsResponse(
  response: GeminiBatchEmbedContentsResponse,
  model: string,
  encoding: EmbeddingsRequest['encoding_format'],
): EmbeddingsResponse {
  return {
    object: 'list',
    data: response.embeddings.map((embedding, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? base64Float32(embedding.values) : embedding.values,
    })),
    model,
    usage: { prompt_tokens: 0, total_tokens: 0 },
  };
}

const operation: OperationAdapter<EmbeddingsRequest, EmbeddingsResponse> = {
  buildRequest({ target, body }) {
    return {
      url: geminiUrl(target, 'embed'),
      method: 'POST',
      headers: geminiHeaders(target, false),
      body: JSON.stringify(toBatchEmbedContentsRequest(body, target.upstreamModel)),
    };
  },
  parseResponse(body, target, request) {
    const parsed = geminiBatchEmbedContentsResponseSchema.safeParse(body);
    if (!parsed.success)
      throw malformedAnswerError('gemini', 'batchEmbedContents answer', parsed.error.issues);
    if (request && parsed.data.embeddings.length !== inputs(request.input).length) {
      throw malformedAnswerError('gemini', 'batchEmbedContents answer', 'one embedding per input expected');
    }
    return toEmbeddingsResponse(parsed.data, target.upstreamModel, request?.encoding_format);
  },
  usageOf: () => null,
};

export const geminiEmbeddingsOperation = Object.freeze(operation);
