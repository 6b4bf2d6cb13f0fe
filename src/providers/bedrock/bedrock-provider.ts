/**
 * The Bedrock provider: Chat Completions served through Converse / ConverseStream, signed with
 * SigV4. Clients of other formats (Anthropic Messages) reach it through the translators.
 */
import { newChatCompletionIdentity } from '../../formats/chat-completions/identity.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { OperationAdapter, ProviderAdapter } from '../types.ts';
import { bedrockAnswerMode } from './bedrock-answer-mode.ts';
import { toChatCompletion } from './bedrock-chat-response.ts';
import {
  BEDROCK_SIGNING_SERVICE,
  bedrockCredentialSource,
  bedrockProviderOptionsSchema,
  converseUrl,
  parseBedrockCredentials,
  resolveBedrockEndpoint,
} from './bedrock-config.ts';
import { toConverseRequest } from './bedrock-converse-request.ts';
import { bedrockCountTokens } from './bedrock-count-tokens.ts';
import { classifyBedrockError } from './bedrock-error.ts';
import { BedrockStreamDecoder } from './bedrock-stream-decoder.ts';
import { bedrockConverseResponseSchema } from './bedrock-wire-types.ts';
import { signRequest } from './sigv4.ts';

export interface BedrockProviderOptions {
  /** The signing clock (SigV4 dates) and the `created` of answers; injectable for tests. */
  now?: () => Date;
}

function chatOperation(now: () => Date): OperationAdapter<ChatCompletionRequest, ChatCompletion> {
  return {
    buildRequest({ target, body, stream }) {
      const endpoint = resolveBedrockEndpoint(target);
      const credentials = parseBedrockCredentials(target.apiKey);
      const url = converseUrl(endpoint, target.upstreamModel, stream);
      const payload = JSON.stringify(toConverseRequest(body));
      const headers = signRequest({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/json',
          accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
        },
        body: payload,
        credentials,
        region: endpoint.region,
        service: BEDROCK_SIGNING_SERVICE,
        now: now(),
      });
      return { url, method: 'POST', headers, body: payload };
    },
    parseResponse(body, target, request) {
      const parsed = bedrockConverseResponseSchema.safeParse(body);
      if (!parsed.success) throw malformedAnswerError('bedrock', 'Converse answer', parsed.error.issues);
      return toChatCompletion(
        parsed.data,
        newChatCompletionIdentity(target.upstreamModel, now()),
        bedrockAnswerMode(request),
      );
    },
    usageOf: (answer) => normaliseChatUsage(answer.usage),
    createStreamDecoder: (target, body) =>
      new BedrockStreamDecoder({
        ...newChatCompletionIdentity(target.upstreamModel, now()),
        includeUsage: body?.stream_options?.include_usage === true,
        mode: bedrockAnswerMode(body),
      }),
  };
}

export function createBedrockProvider(options: BedrockProviderOptions = {}): ProviderAdapter {
  const now = options.now ?? (() => new Date());
  return Object.freeze({
    id: 'bedrock',
    operations: Object.freeze({ 'chat.completions': chatOperation(now) as OperationAdapter }),
    requiresBaseUrl: false,
    optionsSchema: bedrockProviderOptionsSchema.strict(),
    credentialSource: bedrockCredentialSource,
    countTokens: bedrockCountTokens(now),
    classifyError: classifyBedrockError,
  });
}

export const bedrockProvider: ProviderAdapter = createBedrockProvider();
