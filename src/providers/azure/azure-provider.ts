import { openAIChatAdapter } from '../openai/openai-chat.ts';
import { classifyOpenAIError } from '../openai/openai-error.ts';
import { openAIOperations } from '../openai/openai-operations.ts';
import type { CredentialFacts, ProviderAdapter } from '../types.ts';
import { AZURE_OPERATIONS, azureProviderOptionsSchema } from './azure-config.ts';
import { azureEndpoint } from './azure-endpoint.ts';
import { azureChunkNormaliser } from './azure-stream-annotations.ts';

/**
 * Azure OpenAI: the OpenAI adapters behind Azure's URL scheme and `api-key` header; its chat
 * streams carry content-filter annotations the decoder normalises (azure-stream-annotations.ts).
 */
export const azureProvider: ProviderAdapter = Object.freeze({
  id: 'azure',
  operations: Object.freeze({
    ...openAIOperations(azureEndpoint, AZURE_OPERATIONS),
    'chat.completions': openAIChatAdapter(azureEndpoint, { chunkNormaliser: azureChunkNormaliser }),
  }),
  requiresBaseUrl: true,
  optionsSchema: azureProviderOptionsSchema.strict(),
  credentialSource: ({ hasApiKey }: CredentialFacts) => (hasApiKey ? 'azure-api-key' : 'none'),
  // Azure answers in OpenAI's error shape; its content filter uses code `content_filter`.
  classifyError: classifyOpenAIError,
  // The library's `azure` provider falls back to OpenAI's (and others') models by itself.
  priceLookups: (model: string) => [{ providerId: 'azure', model }],
});
