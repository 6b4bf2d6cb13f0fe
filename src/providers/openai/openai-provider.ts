import { storedKeyOrNone } from '../shared/credential-source.ts';
import type { ProviderAdapter } from '../types.ts';
import { OPENAI_PATHS, type OpenAIOperation, openAIProviderOptionsSchema } from './openai-config.ts';
import { openAIEndpoint } from './openai-endpoint.ts';
import { classifyOpenAIError } from './openai-error.ts';
import { openAIOperations } from './openai-operations.ts';

/** OpenAI: every operation of OPENAI_PATHS natively; Bearer authentication. */
export const openAIProvider: ProviderAdapter = Object.freeze({
  id: 'openai',
  operations: openAIOperations(openAIEndpoint, Object.keys(OPENAI_PATHS) as OpenAIOperation[]),
  requiresBaseUrl: false,
  optionsSchema: openAIProviderOptionsSchema.strict(),
  credentialSource: storedKeyOrNone,
  classifyError: classifyOpenAIError,
  priceLookups: (model: string) => [{ providerId: 'openai', model }],
});
