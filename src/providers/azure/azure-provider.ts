import { openAIChatAdapter } from '../openai/openai-chat.ts';
import { classifyOpenAIError } from '../openai/openai-error.ts';
import { openAIOperations } from '../openai/openai-operations.ts';
import { openAIResponsesAdapter } from '../openai/openai-responses.ts';
import type { ProviderAdapter } from '../types.ts';
import { withApiVersionCheck } from './azure-api-version.ts';
import { AZURE_OPERATIONS, azureCredentialSource, azureOptionsSchema } from './azure-config.ts';
import { azureContentFilterOf } from './azure-content-filter.ts';
import { azureEndpoint } from './azure-endpoint.ts';
import { AzureEntraTokens } from './azure-entra-tokens.ts';
import { azureChunkNormaliser } from './azure-stream-annotations.ts';

export interface AzureProviderOptions {
  /** The Entra token cache (its clock, its fetcher); injectable for tests. */
  tokens?: AzureEntraTokens;
}

/**
 * Azure OpenAI: the OpenAI adapters behind Azure's URL scheme (azure-endpoint.ts); its chat
 * streams carry content-filter annotations the decoder normalises (azure-stream-annotations.ts);
 * what its filter withheld goes to the request record (azure-content-filter.ts);
 * Responses natively on a deployment that declares `responsesApi`; authenticated by the `api-key`
 * or by a Microsoft Entra ID token (azure-entra-tokens.ts).
 */
export function createAzureProvider(options: AzureProviderOptions = {}): ProviderAdapter {
  const tokens = options.tokens ?? new AzureEntraTokens();
  const operations = Object.freeze({
    ...openAIOperations(azureEndpoint, AZURE_OPERATIONS),
    'chat.completions': withApiVersionCheck(
      openAIChatAdapter(azureEndpoint, {
        chunkNormaliser: azureChunkNormaliser,
        contentFilterOf: azureContentFilterOf,
      }),
    ),
  });
  const withResponses = Object.freeze({ ...operations, responses: openAIResponsesAdapter(azureEndpoint) });
  const provider: ProviderAdapter = {
    id: 'azure',
    operations,
    operationsFor: ({ providerOptions }) =>
      providerOptions.responsesApi === true ? withResponses : operations,
    requiresBaseUrl: true,
    optionsSchema: azureOptionsSchema,
    credentialSource: azureCredentialSource,
    authorize: async (request, target) => {
      if (
        azureCredentialSource({
          hasApiKey: target.apiKey !== null,
          providerOptions: target.providerOptions,
        }) === 'azure-api-key'
      ) {
        return request;
      }
      return {
        ...request,
        headers: { ...request.headers, authorization: `Bearer ${await tokens.tokenFor(target)}` },
      };
    },
    // Azure answers in OpenAI's error shape; its content filter uses code `content_filter`.
    classifyError: classifyOpenAIError,
    // The library's `azure` provider falls back to OpenAI's (and others') models by itself.
    priceLookups: (model: string) => [{ providerId: 'azure', model }],
  };
  return Object.freeze(provider);
}

export const azureProvider: ProviderAdapter = createAzureProvider();
