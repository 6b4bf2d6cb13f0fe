/**
 * The Bedrock provider: Chat Completions served through Converse / ConverseStream, signed with
 * SigV4. Clients of other formats (Anthropic Messages) reach it through the translators.
 */
import { newChatCompletionIdentity } from '../../formats/chat-completions/identity.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { OperationAdapter, ProviderAdapter } from '../types.ts';
import { AwsCredentialSources } from './aws-credentials.ts';
import { bedrockAnswerMode } from './bedrock-answer-mode.ts';
import { toChatCompletion } from './bedrock-chat-response.ts';
import {
  bedrockCredentialSource,
  bedrockProviderOptionsSchema,
  converseUrl,
  resolveBedrockEndpoint,
} from './bedrock-config.ts';
import { toConverseRequest } from './bedrock-converse-request.ts';
import { bedrockCountTokens } from './bedrock-count-tokens.ts';
import { classifyBedrockError } from './bedrock-error.ts';
import { bedrockAuthorizer, bedrockRequest } from './bedrock-signing.ts';
import { BedrockStreamDecoder } from './bedrock-stream-decoder.ts';
import { bedrockConverseResponseSchema } from './bedrock-wire-types.ts';

export interface BedrockProviderOptions {
  /** The signing clock (SigV4 dates), the `created` of answers and the role cache's; injectable for tests. */
  now?: () => Date;
  /** Where credentials come from when the stored key is not the credential; injectable for tests. */
  credentials?: AwsCredentialSources;
}

function chatOperation(now: () => Date): OperationAdapter<ChatCompletionRequest, ChatCompletion> {
  return {
    buildRequest({ target, body, stream }) {
      const url = converseUrl(resolveBedrockEndpoint(target), target.upstreamModel, stream);
      const headers = {
        'content-type': 'application/json',
        accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
      };
      return bedrockRequest(target, { url, headers, body: JSON.stringify(toConverseRequest(body)) }, now());
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
    authorize: bedrockAuthorizer(options.credentials ?? new AwsCredentialSources({ now }), now),
    countTokens: bedrockCountTokens(now),
    classifyError: classifyBedrockError,
  });
}

export const bedrockProvider: ProviderAdapter = createBedrockProvider();
