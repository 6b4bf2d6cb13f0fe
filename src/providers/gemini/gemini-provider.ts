/**
 * The Gemini provider: Chat Completions served through generateContent / streamGenerateContent
 * (SSE), and embeddings through batchEmbedContents. Clients of other formats (Anthropic Messages)
 * reach it through the translators.
 */

import { z } from 'zod';
import { newChatCompletionIdentity } from '../../formats/chat-completions/identity.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { storedKeyOrNone } from '../shared/credential-source.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { DeploymentTarget, OperationAdapter, ProviderAdapter } from '../types.ts';
import { toChatCompletion } from './gemini-chat-response.ts';
import { geminiHeaders, geminiUrl } from './gemini-config.ts';
import { geminiCountTokens } from './gemini-count-tokens.ts';
import { geminiEmbeddingsOperation } from './gemini-embeddings.ts';
import { classifyGeminiError } from './gemini-error.ts';
import { toGenerateContentRequest } from './gemini-generate-request.ts';
import { GeminiStreamDecoder } from './gemini-stream-decoder.ts';
import { geminiGenerateContentResponseSchema } from './gemini-wire-types.ts';

export interface GeminiProviderOptions {
  /** The `created` time of answers; injectable for tests. */
  now?: () => Date;
}

/**
 * Where a generateContent call goes and how it authenticates: the Gemini API (an API key), or
 * Vertex AI (its regional model path; a bearer token added by the provider's `authorize`).
 */
export interface GenerateContentEndpoint {
  url(target: DeploymentTarget, stream: boolean): string;
  headers(target: DeploymentTarget, stream: boolean): Record<string, string>;
}

const geminiApiEndpoint: GenerateContentEndpoint = {
  url: (target, stream) => geminiUrl(target, stream ? 'stream' : 'generate'),
  headers: geminiHeaders,
};

/** Chat Completions through generateContent: the Gemini API's body and answers, on either endpoint. */
export function generateContentChatOperation(
  now: () => Date,
  endpoint: GenerateContentEndpoint,
): OperationAdapter<ChatCompletionRequest, ChatCompletion> {
  return {
    buildRequest({ target, body, stream }) {
      return {
        url: endpoint.url(target, stream),
        method: 'POST',
        headers: endpoint.headers(target, stream),
        body: JSON.stringify(toGenerateContentRequest(body)),
      };
    },
    parseResponse(body, target, request) {
      const parsed = geminiGenerateContentResponseSchema.safeParse(body);
      if (!parsed.success)
        throw malformedAnswerError('gemini', 'generateContent answer', parsed.error.issues);
      const { responseId, modelVersion } = parsed.data;
      return toChatCompletion(
        parsed.data,
        newChatCompletionIdentity(modelVersion ?? target.upstreamModel, now(), responseId),
        { singleToolCall: request?.parallel_tool_calls === false },
      );
    },
    usageOf: (answer) => normaliseChatUsage(answer.usage),
    createStreamDecoder: (_target, { body, publicModel }) =>
      new GeminiStreamDecoder({
        ...newChatCompletionIdentity(publicModel, now()),
        includeUsage: body?.stream_options?.include_usage === true,
        singleToolCall: body?.parallel_tool_calls === false,
      }),
  };
}

export function createGeminiProvider(options: GeminiProviderOptions = {}): ProviderAdapter {
  const now = options.now ?? (() => new Date());
  return Object.freeze({
    id: 'gemini',
    operations: Object.freeze({
      'chat.completions': generateContentChatOperation(now, geminiApiEndpoint) as OperationAdapter,
      embeddings: geminiEmbeddingsOperation as OperationAdapter,
    }),
    requiresBaseUrl: false,
    // No options yet: the API key and an optional base URL are all the Gemini API takes.
    optionsSchema: z.strictObject({}),
    credentialSource: storedKeyOrNone,
    countTokens: geminiCountTokens,
    classifyError: classifyGeminiError,
    priceLookups: (model: string) => [{ providerId: 'google', model: model.replace(/^models\//, '') }],
  });
}

export const geminiProvider: ProviderAdapter = createGeminiProvider();
