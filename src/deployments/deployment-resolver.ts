import { GatewayError } from '../errors/gateway-error.ts';
import { invalidFieldError, issueParam } from '../errors/invalid-field.ts';
import { OPERATION_SPECS } from '../formats/operation-spec.ts';
import { getProviderAdapter, planOperation, providerIds } from '../providers/registry.ts';
import {
  type CredentialSource,
  OPERATIONS,
  type Operation,
  type ProviderAdapter,
  type Transport,
} from '../providers/types.ts';
import type { OperationProfile, ParamRule } from './deployment.ts';
import type { DeploymentCreateInput } from './deployment-schemas.ts';

/** What the catalog knows of a provider's model; null fields when it does not know. */
export interface CatalogFacts {
  contextWindow: number | null;
  capabilities: Readonly<Record<string, boolean>> | null;
  hasPrice: boolean;
}

/** Looks a model up in the catalog; injected so the resolver does not depend on the catalog's storage. */
export type CatalogLookup = (provider: string, upstreamModel: string, operation: Operation) => CatalogFacts;

export type PriceSource = 'override' | 'catalog' | 'none';

/** How one operation of a deployment is served (DESIGN.md section 5, resolve). */
export interface ResolvedOperation {
  mode: 'native' | 'translated';
  /** The provider's native operation a translated one goes through; null when native. */
  via: Operation | null;
  transports: Transport[];
  /** Allowed parameter values; null = the provider's defaults (no restriction by the gateway). */
  params: Readonly<Record<string, ParamRule>> | null;
  contextWindow: number | null;
  capabilities: Readonly<Record<string, boolean>> | null;
  priceSource: PriceSource;
}

export interface ResolvedDeployment {
  provider: string;
  publicModel: string;
  upstreamModel: string;
  /** Where the credential of a call comes from: the stored key, a cloud credential chain, or none. */
  credentialSource: CredentialSource;
  operations: Partial<Record<Operation, ResolvedOperation>>;
}

function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', { param, message: `Invalid value for '${param}': ${message}` });
}

/**
 * Validates a deployment against what its provider can do and resolves its operation profile:
 * the provider is known, `baseUrl` is present where the provider needs one, each profiled
 * operation is served natively or by translation, each transport is possible, and the
 * `providerOptions` are the provider's (its `optionsSchema`). Throws a 400 naming the field; saves
 * nothing. Create, PATCH and `POST /admin/deployments/resolve` all run it. `hasStoredKey`: a PATCH
 * that leaves the stored credential in place.
 */
export function resolveDeployment(
  input: DeploymentCreateInput,
  catalog: CatalogLookup,
  hasStoredKey = false,
): ResolvedDeployment {
  const provider = getProviderAdapter(input.provider);
  if (provider === null) {
    throw invalid('provider', `unknown provider "${input.provider}" (known: ${providerIds().join(', ')}).`);
  }
  if (provider.requiresBaseUrl && (input.baseUrl ?? null) === null) {
    throw invalid('baseUrl', `provider "${input.provider}" needs a baseUrl.`);
  }
  checkProviderOptions(provider, input.providerOptions);
  const profiled = input.profile?.operations;
  const operations: Partial<Record<Operation, ResolvedOperation>> = {};
  for (const operation of OPERATIONS) {
    const profile = profiled === undefined ? {} : profiled[operation];
    if (profile === undefined) continue;
    const resolved = resolveOperation(provider, operation, profile, input, catalog);
    if (resolved === null && profiled !== undefined) {
      throw invalid(
        `profile.operations.${operation}`,
        `provider "${input.provider}" cannot serve ${operation}, natively or by translation.`,
      );
    }
    if (resolved !== null) operations[operation] = resolved;
  }
  return {
    provider: input.provider,
    publicModel: input.publicModel,
    upstreamModel: input.upstreamModel,
    credentialSource: provider.credentialSource({
      hasApiKey: (input.apiKey ?? null) !== null || hasStoredKey,
      providerOptions: input.providerOptions,
    }),
    operations,
  };
}

/** The provider's own schema, at save time, so no call meets an option its adapter cannot use. */
function checkProviderOptions(provider: ProviderAdapter, options: Readonly<Record<string, unknown>>): void {
  const result = provider.optionsSchema.safeParse(options);
  if (result.success) return;
  const issue = result.error.issues[0];
  throw invalidFieldError(issue, issueParam(issue, ['providerOptions']));
}

function resolveOperation(
  provider: ProviderAdapter,
  operation: Operation,
  profile: OperationProfile,
  input: DeploymentCreateInput,
  catalog: CatalogLookup,
): ResolvedOperation | null {
  const plan = planOperation(provider.id, operation, input);
  if (plan === null) return null;
  const possible = possibleTransports(operation, plan.adapter.createStreamDecoder !== undefined);
  for (const [index, transport] of (profile.transports ?? []).entries()) {
    if (!possible.includes(transport)) {
      throw invalid(
        `profile.operations.${operation}.transports.${index}`,
        `${operation} on "${provider.id}" cannot use ${transport} (possible: ${possible.join(', ')}).`,
      );
    }
  }
  const facts = catalog(provider.id, input.upstreamModel, operation);
  return {
    mode: plan.kind,
    via: plan.kind === 'translated' ? plan.translator.to : null,
    transports: [...(profile.transports ?? possible)],
    params: profile.params ?? null,
    contextWindow: facts.contextWindow,
    capabilities: facts.capabilities,
    priceSource: (input.pricing ?? null) !== null ? 'override' : facts.hasPrice ? 'catalog' : 'none',
  };
}

/** JSON always; SSE only where the upstream adapter can stream; multipart only for file uploads. */
function possibleTransports(operation: Operation, streams: boolean): Transport[] {
  const transports: Transport[] = ['json'];
  if (streams) transports.push('sse');
  if (OPERATION_SPECS[operation].multipart) transports.push('multipart');
  return transports;
}
