/**
 * Microsoft Entra ID tokens for Azure OpenAI, through `@azure/identity` (scope
 * `https://cognitiveservices.azure.com/.default`):
 *
 * - a stored key with `providerOptions.entra`: the key is the app registration's client secret
 *   (`ClientSecretCredential`, tenant and client from the options or AZURE_TENANT_ID / AZURE_CLIENT_ID);
 * - no stored key: the workload's own identity, workload identity federation when
 *   AZURE_FEDERATED_TOKEN_FILE is set (AKS, `WorkloadIdentityCredential`), else the managed
 *   identity of the host (`ManagedIdentityCredential`, user-assigned when `entra.clientId` names one).
 *
 * A credential is built per fetch, so the library's own cache never serves a token the gateway's
 * cache (shared/token-cache.ts) has decided to replace. The authority is taken as configured
 * (`disableInstanceDiscovery`): its metadata comes from its own OpenID configuration, never from a
 * discovery call to Microsoft's public cloud, which a sovereign or private authority cannot answer.
 */
import type { TokenCredential } from '@azure/identity';
import { type AccessToken, credentialUnavailable, TokenCache } from '../shared/token-cache.ts';
import type { DeploymentTarget } from '../types.ts';
import { type AzureProviderOptions, azureOptionsOf, COGNITIVE_SERVICES_SCOPE } from './azure-config.ts';

/** Fetches a fresh token for a deployment. Injectable for tests. */
export type EntraTokenFetcher = (target: DeploymentTarget) => Promise<AccessToken>;

export class AzureEntraTokens {
  readonly #cache: TokenCache;

  constructor(options: { now?: () => Date; fetch?: EntraTokenFetcher } = {}) {
    this.#cache = new TokenCache({
      now: options.now,
      fetch: options.fetch ?? fetchEntraToken,
      failure: (target, error) => credentialUnavailable(target, 'azure-entra-id', error),
    });
  }

  /** The bearer token for a call on `target`; throws `upstream_auth_failed` when none can be had. */
  tokenFor(target: DeploymentTarget): Promise<string> {
    return this.#cache.tokenFor(target);
  }
}

async function fetchEntraToken(target: DeploymentTarget): Promise<AccessToken> {
  const credential = await credentialFor(target.apiKey, azureOptionsOf(target.providerOptions).entra ?? {});
  const token = await credential.getToken(COGNITIVE_SERVICES_SCOPE);
  if (token === null) throw new Error('Microsoft Entra ID gave no token');
  return { token: token.token, expiresAt: token.expiresOnTimestamp };
}

/**
 * `@azure/identity` is imported at the first token fetch, not at start: it is large (see
 * docs/decisions/hot-path.md, Modules loaded only where used) and a gateway without an Entra ID
 * deployment never needs it.
 */
async function credentialFor(
  clientSecret: string | null,
  entra: NonNullable<AzureProviderOptions['entra']>,
): Promise<TokenCredential> {
  const { ClientSecretCredential, ManagedIdentityCredential, WorkloadIdentityCredential } = await import(
    '@azure/identity'
  );
  const common = {
    ...(entra.authorityHost === undefined ? {} : { authorityHost: entra.authorityHost }),
    disableInstanceDiscovery: true,
  };
  if (clientSecret !== null) {
    const tenantId = entra.tenantId ?? process.env.AZURE_TENANT_ID ?? '';
    const clientId = entra.clientId ?? process.env.AZURE_CLIENT_ID ?? '';
    return new ClientSecretCredential(tenantId, clientId, clientSecret, common);
  }
  if (process.env.AZURE_FEDERATED_TOKEN_FILE !== undefined) {
    return new WorkloadIdentityCredential({ ...common, tenantId: entra.tenantId, clientId: entra.clientId });
  }
  return new ManagedIdentityCredential(entra.clientId === undefined ? {} : { clientId: entra.clientId });
}
