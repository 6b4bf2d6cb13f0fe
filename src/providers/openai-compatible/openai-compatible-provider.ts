import { classifyOpenAIError } from '../openai/openai-error.ts';
import { openAIOperations } from '../openai/openai-operations.ts';
import type { ProviderAdapter } from '../types.ts';
import { OPENAI_COMPATIBLE_OPERATIONS } from './openai-compatible-config.ts';
import { openAICompatibleEndpoint } from './openai-compatible-endpoint.ts';

/** OpenAI-format servers: the OpenAI adapters at the deployment's own base URL. */
export const openAICompatibleProvider: ProviderAdapter = Object.freeze({
  id: 'openai-compatible',
  operations: openAIOperations(openAICompatibleEndpoint, OPENAI_COMPATIBLE_OPERATIONS),
  requiresBaseUrl: true,
  classifyError: classifyOpenAIError,
});
