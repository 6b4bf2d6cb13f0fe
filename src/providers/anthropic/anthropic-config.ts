import { z } from 'zod';

/** Anthropic API reference, "Getting started": the base of every path. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_MESSAGES_PATH = '/v1/messages';
/** API reference, "Count tokens in a message". */
export const ANTHROPIC_COUNT_TOKENS_PATH = '/v1/messages/count_tokens';
/** Anthropic API reference, "Versions": the current (and only) version of the Messages API. */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * The client headers an Anthropic deployment takes from the caller (what Claude Code and the
 * SDKs send): the API version they speak, and the beta features they use.
 */
export const ANTHROPIC_CLIENT_HEADERS: readonly string[] = Object.freeze([
  'anthropic-version',
  'anthropic-beta',
]);

/** `providerOptions` of an `anthropic` deployment: beta features, sent as `anthropic-beta`. */
export const anthropicProviderOptionsSchema = z.object({
  betas: z.array(z.string().min(1)).optional(),
});
