import type { ProviderAdapter } from '../types.ts';
import { OPENAI_PATHS, type OpenAIOperation } from './openai-config.ts';
import { openAIEndpoint } from './openai-endpoint.ts';
import { classifyOpenAIError } from './openai-error.ts';
import { openAIOperations } from './openai-operations.ts';

/** OpenAI: every operation of OPENAI_PATHS natively; Bearer authentication. */
export const openAIProvider: ProviderAdapter = Object.freeze({
  id: 'openai',
  operations: openAIOperations(openAIEndpoint, Object.keys(OPENAI_PATHS) as OpenAIOperation[]),
  requiresBaseUrl: false,
  classifyError: classifyOpenAIError,
});
