import { z } from 'zod';
import type { OpenAIOperation } from '../openai/openai-config.ts';

/**
 * The latest GA version of the Azure OpenAI data-plane inference API (Azure OpenAI REST API
 * reference, "API specs": data plane - inference). A deployment may pin another through
 * `providerOptions.apiVersion`.
 */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/** Operations an Azure OpenAI deployment serves natively. */
export const AZURE_OPERATIONS: readonly OpenAIOperation[] = Object.freeze([
  'chat.completions',
  'embeddings',
  'images.generations',
  'audio.transcriptions',
]);

export const azureProviderOptionsSchema = z.object({
  apiVersion: z.string().min(1).optional(),
});
