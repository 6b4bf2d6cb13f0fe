import { z } from 'zod';
import type { PriceLookup } from '../../catalog/price-lookup.ts';
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
  priceLookups: compatiblePriceLookups,
});

/**
 * A compatible server can be any host, so only the price library's own model-name inference is
 * used (`gpt-*` -> OpenAI, `deepseek*` -> DeepSeek, ...), on the id and on its last path segment
 * (`org/model`); a self-hosted Llama gets no price rather than some other host's.
 */
function compatiblePriceLookups(model: string): PriceLookup[] {
  const lookups: PriceLookup[] = [{ model }];
  const lastSegment = model.slice(model.lastIndexOf('/') + 1);
  if (lastSegment !== model) lookups.push({ model: lastSegment });
  return lookups;
}
