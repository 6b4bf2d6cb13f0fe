/**
 * The Gemini provider: Chat Completions served through generateContent / streamGenerateContent
 * (SSE), and embeddings through batchEmbedContents. Clients of other formats (Anthropic Messages)
 * reach it through the translators.
 */
import { newChatCompletionIdentity } from '../../formats/chat-completions/identity.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { OperationAdapter, ProviderAdapter } from '../types.ts';
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

function chatOperation(now: () => Date): OperationAdapter<ChatCompletionRequest, ChatCompletion> {
  return {
    buildRequest({ target, body, stream }) {
      return {
        url: geminiUrl(target, stream ? 'stream' : 'generate'),
        method: 'POST',
        headers: geminiHeaders(target, stream),
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
    createStreamDecoder: (target, body) =>
      new GeminiStreamDecoder({
        ...newChatCompletionIdentity(target.upstreamModel, now()),
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
      'chat.completions': chatOperation(now) as OperationAdapter,
      embeddings: geminiEmbeddingsOperation as OperationAdapter,
    }),
    requiresBaseUrl: false,
    countTokens: geminiCountTokens,
    classifyError: classifyGeminiError,
  });
}

export const geminiProvider: ProviderAdapter = createGeminiProvider();
