import { storedKeyOrNone } from '../shared/credential-source.ts';
import type { ProviderAdapter } from '../types.ts';
import { ANTHROPIC_CLIENT_HEADERS, anthropicProviderOptionsSchema } from './anthropic-config.ts';
import { anthropicCountTokens } from './anthropic-count-tokens.ts';
import { classifyAnthropicError } from './anthropic-error.ts';
import { anthropicMessagesAdapter } from './anthropic-messages.ts';

/** Anthropic: the Messages API natively; chat.completions through a translator (see registry). */
export const anthropicProvider: ProviderAdapter = Object.freeze({
  id: 'anthropic',
  operations: Object.freeze({ messages: anthropicMessagesAdapter }),
  requiresBaseUrl: false,
  optionsSchema: anthropicProviderOptionsSchema.strict(),
  credentialSource: storedKeyOrNone,
  forwardedClientHeaders: ANTHROPIC_CLIENT_HEADERS,
  countTokens: anthropicCountTokens,
  classifyError: classifyAnthropicError,
  priceLookups: (model: string) => [{ providerId: 'anthropic', model }],
});
