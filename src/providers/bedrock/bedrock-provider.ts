/**
 * The Bedrock provider, signed with SigV4: Claude models speak Messages natively through
 * InvokeModel (bedrock-claude.ts), other models Chat Completions through Converse /
 * ConverseStream. Clients of other formats reach each through the translators (a Chat client on
 * Claude goes Chat -> Messages -> InvokeModel, a Messages client on Nova Messages -> Chat ->
 * Converse).
 */

import { normalizeModelName } from '../../catalog/normalize-model-name.ts';
import type { PriceLookup } from '../../catalog/price-lookup.ts';
import { newChatCompletionIdentity } from '../../formats/chat-completions/identity.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../formats/chat-completions/wire.ts';
import { malformedAnswerError } from '../shared/upstream-error.ts';
import type { DeployedModel, OperationAdapter, ProviderAdapter } from '../types.ts';
import { AwsCredentialSources } from './aws-credentials.ts';
import { bedrockAnswerMode } from './bedrock-answer-mode.ts';
import { toChatCompletion } from './bedrock-chat-response.ts';
import { bedrockClaudeOperation } from './bedrock-claude.ts';
import {
  bedrockCredentialSource,
  bedrockProviderOptionsSchema,
  converseUrl,
  resolveBedrockEndpoint,
} from './bedrock-config.ts';
import { toConverseRequest } from './bedrock-converse-request.ts';
import { bedrockCountTokens } from './bedrock-count-tokens.ts';
import { classifyBedrockError } from './bedrock-error.ts';
import { bedrockSignedRequest } from './bedrock-signed-request.ts';
import { bedrockAuthorizer } from './bedrock-signing.ts';
import { BedrockStreamDecoder } from './bedrock-stream-decoder.ts';
import { isClaudeModel } from './bedrock-tool-config.ts';
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
      const endpoint = resolveBedrockEndpoint(target);
      const url = converseUrl(endpoint, target.upstreamModel, stream);
      const payload = JSON.stringify(toConverseRequest(body));
      return bedrockSignedRequest({ target, endpoint, url, payload, stream, now: now() });
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
    createStreamDecoder: (_target, { body, publicModel }) =>
      new BedrockStreamDecoder({
        ...newChatCompletionIdentity(publicModel, now()),
        includeUsage: body?.stream_options?.include_usage === true,
        mode: bedrockAnswerMode(body),
      }),
  };
}

export function createBedrockProvider(options: BedrockProviderOptions = {}): ProviderAdapter {
  const now = options.now ?? (() => new Date());
  const converse = Object.freeze({ 'chat.completions': chatOperation(now) as OperationAdapter });
  const claude = Object.freeze({ messages: bedrockClaudeOperation(now) as OperationAdapter });
  return Object.freeze({
    id: 'bedrock',
    operations: Object.freeze({ ...converse, ...claude }),
    operationsFor: (model: DeployedModel) => (claudeThroughInvokeModel(model) ? claude : converse),
    forwardedClientHeaders: Object.freeze(['anthropic-beta']),
    requiresBaseUrl: false,
    optionsSchema: bedrockProviderOptionsSchema.strict(),
    credentialSource: bedrockCredentialSource,
    authorize: bedrockAuthorizer(options.credentials ?? new AwsCredentialSources({ now }), now),
    countTokens: bedrockCountTokens(now),
    classifyError: classifyBedrockError,
    priceLookups: bedrockPriceLookups,
  });
}

const BEDROCK_VERSION_SUFFIX = /-v\d+(?::\d+)?$/;

/** Bedrock's own prices, then Anthropic's for a Claude id the library does not list under `aws`. */
function bedrockPriceLookups(model: string): PriceLookup[] {
  const lookups: PriceLookup[] = [{ providerId: 'aws', model }];
  const name = normalizeModelName(model);
  if (name.startsWith('claude'))
    lookups.push({ providerId: 'anthropic', model: name.replace(BEDROCK_VERSION_SUFFIX, '') });
  return lookups;
}

/**
 * Claude models go through InvokeModel unless the deployment says `providerOptions.claudeApi:
 * 'converse'` (Converse's own features, such as its guardrail configuration, or a
 * deployment's former behaviour kept).
 */
function claudeThroughInvokeModel(model: DeployedModel): boolean {
  return isClaudeModel(model.upstreamModel) && model.providerOptions.claudeApi !== 'converse';
}

export const bedrockProvider: ProviderAdapter = createBedrockProvider();
