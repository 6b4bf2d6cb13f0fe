/**
 * Vertex AI (`vertex`): Gemini models through generateContent / streamGenerateContent, Claude
 * models through rawPredict / streamRawPredict (and their token count, vertex-count-tokens.ts), each with its native adapter's body and answers
 * (vertex-operations.ts), authenticated with an OAuth token from the deployment's service-account
 * key or the workload's default credentials (vertex-tokens.ts).
 */

import { normalizeModelName } from '../../catalog/normalize-model-name.ts';
import type { PriceLookup } from '../../catalog/price-lookup.ts';
import { classifyAnthropicError } from '../anthropic/anthropic-error.ts';
import { classifyGeminiError } from '../gemini/gemini-error.ts';
import type { ProviderAdapter } from '../types.ts';
import { isVertexClaude, vertexCredentialSource, vertexProviderOptionsSchema } from './vertex-config.ts';
import { vertexCountTokens } from './vertex-count-tokens.ts';
import { vertexClaudeOperations, vertexGeminiOperations } from './vertex-operations.ts';
import { VertexTokens } from './vertex-tokens.ts';

export interface VertexProviderOptions {
  /** The `created` of answers and the token cache's clock; injectable for tests. */
  now?: () => Date;
  tokens?: VertexTokens;
}

export function createVertexProvider(options: VertexProviderOptions = {}): ProviderAdapter {
  const now = options.now ?? (() => new Date());
  const tokens = options.tokens ?? new VertexTokens({ now });
  const gemini = vertexGeminiOperations(now);
  const provider: ProviderAdapter = {
    id: 'vertex',
    operations: Object.freeze({ ...gemini, ...vertexClaudeOperations }),
    operationsFor: ({ upstreamModel }) => (isVertexClaude(upstreamModel) ? vertexClaudeOperations : gemini),
    requiresBaseUrl: false,
    optionsSchema: vertexProviderOptionsSchema.strict(),
    credentialSource: vertexCredentialSource,
    countTokens: vertexCountTokens,
    authorize: async (request, target) => ({
      ...request,
      headers: { ...request.headers, authorization: `Bearer ${await tokens.tokenFor(target)}` },
    }),
    // Vertex answers Gemini calls in Google's error shape and Claude calls in Anthropic's.
    classifyError: (status, body, headers) =>
      isAnthropicError(body)
        ? classifyAnthropicError(status, body, headers)
        : classifyGeminiError(status, body, headers),
    priceLookups: vertexPriceLookups,
  };
  return Object.freeze(provider);
}

/** The library's `google` provider holds Vertex AI's own prices, Claude's `@version` ids included. */
function vertexPriceLookups(model: string): PriceLookup[] {
  const lookups: PriceLookup[] = [{ providerId: 'google', model }];
  if (model.startsWith('claude-'))
    lookups.push({ providerId: 'anthropic', model: normalizeModelName(model) });
  return lookups;
}

function isAnthropicError(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { type?: unknown }).type === 'error';
}

export const vertexProvider: ProviderAdapter = createVertexProvider();
