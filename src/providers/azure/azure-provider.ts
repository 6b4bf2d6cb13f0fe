import { classifyOpenAIError } from '../openai/openai-error.ts';
import { openAIOperations } from '../openai/openai-operations.ts';
import type { ProviderAdapter } from '../types.ts';
import { AZURE_OPERATIONS } from './azure-config.ts';
import { azureEndpoint } from './azure-endpoint.ts';

/** Azure OpenAI: the OpenAI adapters behind Azure's URL scheme and `api-key` header. */
export const azureProvider: ProviderAdapter = Object.freeze({
  id: 'azure',
  operations: openAIOperations(azureEndpoint, AZURE_OPERATIONS),
  requiresBaseUrl: true,
  // Azure answers in OpenAI's error shape; its content filter uses code `content_filter`.
  classifyError: classifyOpenAIError,
});
