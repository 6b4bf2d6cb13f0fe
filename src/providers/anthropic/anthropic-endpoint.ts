import { GatewayError } from '../../errors/gateway-error.ts';
import { joinUrl } from '../shared/join-url.ts';
import type { DeploymentTarget } from '../types.ts';
import {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_MESSAGES_PATH,
  ANTHROPIC_VERSION,
  anthropicProviderOptionsSchema,
} from './anthropic-config.ts';
import { mergedBetas } from './claude-body.ts';

/** `{base}{path}` (base: the deployment's baseUrl or Anthropic's); the Messages path by default. */
export function anthropicMessagesUrl(target: DeploymentTarget, path = ANTHROPIC_MESSAGES_PATH): string {
  return joinUrl(target.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL, path);
}

/**
 * API reference, "Getting started" and "Beta headers": `x-api-key`, `anthropic-version`, optional
 * `anthropic-beta`. The client's `anthropic-version` wins over the gateway's default (the client
 * knows the version it speaks); `anthropic-beta` is the deployment's `providerOptions.betas`
 * followed by the client's betas, each once.
 */
export function anthropicHeaders(
  target: DeploymentTarget,
  clientHeaders: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    'anthropic-version': clientHeaders['anthropic-version'] ?? ANTHROPIC_VERSION,
  };
  if (target.apiKey !== null) headers['x-api-key'] = target.apiKey;
  const options = anthropicProviderOptionsSchema.safeParse(target.providerOptions);
  if (!options.success) {
    throw new GatewayError('internal_error', {
      detail: { deployment: target.id, reason: 'invalid providerOptions', issues: options.error.issues },
    });
  }
  const betas = mergedBetas(options.data.betas ?? [], clientHeaders['anthropic-beta']);
  if (betas.length > 0) headers['anthropic-beta'] = betas.join(',');
  return headers;
}
