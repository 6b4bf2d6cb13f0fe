import { z } from 'zod';

/** Anthropic API reference, "Getting started": the base of every path. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_MESSAGES_PATH = '/v1/messages';
/** Anthropic API reference, "Versions": the current (and only) version of the Messages API. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** `providerOptions` of an `anthropic` deployment: beta features, sent as `anthropic-beta`. */
export const anthropicProviderOptionsSchema = z.object({
  betas: z.array(z.string().min(1)).optional(),
});
