import { GatewayError } from '../../errors/gateway-error.ts';
import type { OpenAIEndpoint } from '../openai/openai-endpoint.ts';
import { joinUrl } from '../shared/join-url.ts';
import type { DeploymentTarget } from '../types.ts';
import { AZURE_DEFAULT_API_VERSION, azureProviderOptionsSchema } from './azure-config.ts';

/**
 * Azure OpenAI (REST API reference, "Data plane - inference"): the deployment name is in the path,
 * `{baseUrl}/openai/deployments/{deployment}{operation path}?api-version=...`, and the key goes
 * in the `api-key` header. The deployment's upstream model is the Azure deployment name.
 */
export const azureEndpoint: OpenAIEndpoint = {
  url(target, path) {
    const base = requireBaseUrl(target);
    const deployment = encodeURIComponent(target.upstreamModel);
    const url = new URL(joinUrl(base, `/openai/deployments/${deployment}${path}`));
    url.searchParams.set('api-version', apiVersion(target));
    return url.toString();
  },
  headers(target): Record<string, string> {
    return target.apiKey === null ? {} : { 'api-key': target.apiKey };
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

function apiVersion(target: DeploymentTarget): string {
  const options = azureProviderOptionsSchema.safeParse(target.providerOptions);
  if (!options.success) {
    throw new GatewayError('internal_error', {
      detail: { deployment: target.id, reason: 'invalid providerOptions', issues: options.error.issues },
    });
  }
  return options.data.apiVersion ?? AZURE_DEFAULT_API_VERSION;
}
