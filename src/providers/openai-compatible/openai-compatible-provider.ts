import { z } from 'zod';
import { classifyOpenAIError } from '../openai/openai-error.ts';
import { openAIOperations } from '../openai/openai-operations.ts';
import { storedKeyOrNone } from '../shared/credential-source.ts';
import type { ProviderAdapter } from '../types.ts';
import { OPENAI_COMPATIBLE_OPERATIONS } from './openai-compatible-config.ts';
import { openAICompatibleEndpoint } from './openai-compatible-endpoint.ts';

/** OpenAI-format servers: the OpenAI adapters at the deployment's own base URL. */
export const openAICompatibleProvider: ProviderAdapter = Object.freeze({
  id: 'openai-compatible',
  operations: openAIOperations(openAICompatibleEndpoint, OPENAI_COMPATIBLE_OPERATIONS),
  requiresBaseUrl: true,
  // No options yet: the base URL and the key are all a compatible server takes.
  optionsSchema: z.strictObject({}),
  credentialSource: storedKeyOrNone,
  classifyError: classifyOpenAIError,
});
