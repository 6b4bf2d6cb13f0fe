import { GatewayError } from '../../errors/gateway-error.ts';
import type { OpenAIEndpoint } from '../openai/openai-endpoint.ts';
import { joinUrl } from '../shared/join-url.ts';
import type { DeploymentTarget } from '../types.ts';
import { AZURE_DEFAULT_API_VERSION, azureOptionsOf } from './azure-config.ts';

/**
 * Azure OpenAI (REST API reference, "Data plane - inference"; "API version lifecycle"):
 *
 * - the v1 API (the default): `{baseUrl}/openai/v1{operation path}`, the deployment name as the
 *   body's `model` (which every OpenAI adapter already sets to the upstream model);
 * - a dated version: `{baseUrl}/openai/deployments/{deployment}{operation path}?api-version=...`,
 *   except Responses, which is not deployment-scoped: `{baseUrl}/openai/responses?api-version=...`.
 *
 * The stored key goes in the `api-key` header, unless it is an Entra app's client secret: Entra
 * tokens are added by the provider's authorizer (azure-entra-tokens.ts).
 */
export const azureEndpoint: OpenAIEndpoint = {
  url(target, path) {
    const base = requireBaseUrl(target);
    const version = azureOptionsOf(target.providerOptions).apiVersion ?? AZURE_DEFAULT_API_VERSION;
    if (version === 'v1') return joinUrl(base, `/openai/v1${path}`);
    const scoped =
      path === '/responses'
        ? '/openai/responses'
        : `/openai/deployments/${encodeURIComponent(target.upstreamModel)}${path}`;
    const url = new URL(joinUrl(base, scoped));
    url.searchParams.set('api-version', version);
    return url.toString();
  },
  headers(target): Record<string, string> {
    if (target.apiKey === null || target.providerOptions.entra !== undefined) return {};
    return { 'api-key': target.apiKey };
  },
};

function requireBaseUrl(target: DeploymentTarget): string {
  if (target.baseUrl === null || target.baseUrl === '') {
    throw new GatewayError('internal_error', {
      detail: { deployment: target.id, reason: 'azure needs baseUrl' },
    });
  }
  return target.baseUrl;
}
