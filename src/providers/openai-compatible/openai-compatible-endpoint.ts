import { GatewayError } from '../../errors/gateway-error.ts';
import type { OpenAIEndpoint } from '../openai/openai-endpoint.ts';
import { joinUrl } from '../shared/join-url.ts';

/**
 * Any OpenAI-format server: `baseUrl` is its origin and path prefix (`http://host:8000/v1`);
 * Bearer authentication only when the deployment has a key (local servers often need none).
 */
export const openAICompatibleEndpoint: OpenAIEndpoint = {
  takesChatExtensions: true,
  url(target, path) {
    if (target.baseUrl === null || target.baseUrl === '') {
      throw new GatewayError('internal_error', {
        detail: { deployment: target.id, reason: 'openai-compatible needs baseUrl' },
      });
    }
    return joinUrl(target.baseUrl, path);
  },
  headers(target): Record<string, string> {
    return target.apiKey === null || target.apiKey === '' ? {} : { authorization: `Bearer ${target.apiKey}` };
  },
};
