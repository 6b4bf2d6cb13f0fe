import { GatewayError } from '../../errors/gateway-error.ts';
import { joinUrl } from '../shared/join-url.ts';
import type { DeploymentTarget } from '../types.ts';
import {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_MESSAGES_PATH,
  ANTHROPIC_VERSION,
  anthropicProviderOptionsSchema,
} from './anthropic-config.ts';

/** `{base}/v1/messages` (base: the deployment's baseUrl or Anthropic's). */
export function anthropicMessagesUrl(target: DeploymentTarget): string {
  return joinUrl(target.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_MESSAGES_PATH);
}

/** API reference, "Getting started": `x-api-key`, `anthropic-version`, optional `anthropic-beta`. */
export function anthropicHeaders(target: DeploymentTarget): Record<string, string> {
  const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
  if (target.apiKey !== null) headers['x-api-key'] = target.apiKey;
  const options = anthropicProviderOptionsSchema.safeParse(target.providerOptions);
  if (!options.success) {
    throw new GatewayError('internal_error', {
      detail: { deployment: target.id, reason: 'invalid providerOptions', issues: options.error.issues },
    });
  }
  if (options.data.betas !== undefined && options.data.betas.length > 0) {
    headers['anthropic-beta'] = options.data.betas.join(',');
  }
  return headers;
}
