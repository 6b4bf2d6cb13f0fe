/**
 * The AWS credentials a Bedrock deployment signs with when they are not its stored key: the AWS SDK's
 * default chain (environment, shared profile, web identity / IRSA, SSO, container and instance
 * metadata), or a role assumed through STS on top of the key or the chain. Credentials live in
 * memory only; a failure names the source and the error's name, never the SDK's text.
 */
import { createHash } from 'node:crypto';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CredentialSource } from '../types.ts';
import type { AwsCredentials } from './sigv4.ts';

/** Credentials with the time they stop working (absent: they do not expire, e.g. environment keys). */
export interface ExpiringAwsCredentials extends AwsCredentials {
  expiration?: Date;
}

export type AwsCredentialProvider = () => Promise<ExpiringAwsCredentials>;

export interface AssumeRoleRequest {
  roleArn: string;
  externalId?: string;
  /** Names the gateway's session in the role's CloudTrail entries. */
  sessionName: string;
  region: string;
  /** The credentials that call STS: the deployment's key, or the default chain. */
  base: AwsCredentials | AwsCredentialProvider;
}

export interface AwsCredentialSourcesOptions {
  /** The clock that decides when cached role credentials are refreshed; injectable for tests. */
  now?: () => Date;
  /** The default chain; the SDK's `fromNodeProviderChain()` (which caches on its own) by default. */
  defaultChain?: AwsCredentialProvider;
  /** STS AssumeRole; the SDK's `fromTemporaryCredentials` by default. */
  assumeRole?: (request: AssumeRoleRequest) => Promise<ExpiringAwsCredentials>;
}

/** What a deployment asks for: its key (null: none) and its role options. */
export interface AwsCredentialNeed {
  deploymentId: string;
  apiKey: AwsCredentials | null;
  region: string;
  roleArn?: string;
  externalId?: string;
}

/** The SDK's own margin (credential-provider-node: `credentialsTreatedAsExpired`): refresh 5 minutes early. */
export const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

interface CachedRole {
  credentials: ExpiringAwsCredentials | null;
  pending: Promise<ExpiringAwsCredentials> | null;
}

export class AwsCredentialSources {
  readonly #now: () => Date;
  readonly #assumeRole: (request: AssumeRoleRequest) => Promise<ExpiringAwsCredentials>;
  readonly #roles = new Map<string, CachedRole>();
  #defaultChain: AwsCredentialProvider | undefined;

  constructor(options: AwsCredentialSourcesOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#assumeRole = options.assumeRole ?? assumeRoleWithSdk;
    this.#defaultChain = options.defaultChain;
  }

  /** The credentials to sign with now; throws `upstream_auth_failed` when none can be had. */
  async credentialsFor(need: AwsCredentialNeed): Promise<AwsCredentials> {
    if (need.roleArn !== undefined) return this.#assumed(need, need.roleArn);
    if (need.apiKey !== null) return need.apiKey;
    return this.#fromChain('aws-default-chain', need.deploymentId);
  }

  async #chain(): Promise<AwsCredentialProvider> {
    // Made on first use, so the chain reads the environment of a process that is already set up.
    if (this.#defaultChain === undefined) {
      const { fromNodeProviderChain } = await awsSdk();
      this.#defaultChain ??= fromNodeProviderChain();
    }
    return this.#defaultChain;
  }

  async #fromChain(source: CredentialSource, deploymentId: string): Promise<ExpiringAwsCredentials> {
    try {
      return await (await this.#chain())();
    } catch (error) {
      throw unavailable(source, deploymentId, error);
    }
  }

  /** Role credentials from the cache, fetched once when absent or within the refresh margin of expiry. */
  async #assumed(need: AwsCredentialNeed, roleArn: string): Promise<AwsCredentials> {
    const key = roleCacheKey(need, roleArn);
    const cached = this.#roles.get(key) ?? { credentials: null, pending: null };
    this.#roles.set(key, cached);
    const now = this.#now().getTime();
    if (cached.credentials !== null && !needsRefresh(cached.credentials, now)) return cached.credentials;
    cached.pending ??= this.#assumeFresh(need, roleArn, cached);
    try {
      return await cached.pending;
    } catch (error) {
      // A failed refresh of credentials that still work is not an outage: use them until they expire.
      if (cached.credentials !== null && !expired(cached.credentials, now)) return cached.credentials;
      throw error;
    }
  }

  async #assumeFresh(need: AwsCredentialNeed, roleArn: string, cached: CachedRole): Promise<AwsCredentials> {
    try {
      const credentials = await this.#assumeRole({
        roleArn,
        externalId: need.externalId,
        sessionName: `switchyard-${need.deploymentId}`.slice(0, 64),
        region: need.region,
        base: need.apiKey ?? (await this.#chain()),
      });
      cached.credentials = credentials;
      this.#dropExpired();
      return credentials;
    } catch (error) {
      throw unavailable('aws-assume-role', need.deploymentId, error);
    } finally {
      cached.pending = null;
    }
  }

  /** A deployment whose key or role changed leaves its old entry behind; expired ones go. */
  #dropExpired(): void {
    const now = this.#now().getTime();
    for (const [key, entry] of this.#roles) {
      if (entry.pending === null && (entry.credentials === null || expired(entry.credentials, now))) {
        this.#roles.delete(key);
      }
    }
  }
}

function needsRefresh(credentials: ExpiringAwsCredentials, now: number): boolean {
  return (
    credentials.expiration !== undefined && credentials.expiration.getTime() - now < REFRESH_BEFORE_EXPIRY_MS
  );
}

function expired(credentials: ExpiringAwsCredentials, now: number): boolean {
  return credentials.expiration !== undefined && credentials.expiration.getTime() <= now;
}

/** One entry per deployment, role and base key: the key enters only as a hash. */
function roleCacheKey(need: AwsCredentialNeed, roleArn: string): string {
  const base = need.apiKey === null ? '' : `${need.apiKey.accessKeyId}:${need.apiKey.secretAccessKey}`;
  const fingerprint = createHash('sha256').update(base).digest('base64url');
  return [need.deploymentId, roleArn, need.externalId ?? '', need.region, fingerprint].join('\n');
}

/**
 * The SDK's credential providers, imported at the first need, not at start: the SDK is large (see
 * docs/decisions/hot-path.md, Modules loaded only where used) and a gateway whose Bedrock
 * deployments all carry keys, or that has none, never needs it.
 */
function awsSdk() {
  return import('@aws-sdk/credential-providers');
}

async function assumeRoleWithSdk(request: AssumeRoleRequest): Promise<ExpiringAwsCredentials> {
  const { fromTemporaryCredentials } = await awsSdk();
  const provider = fromTemporaryCredentials({
    params: {
      RoleArn: request.roleArn,
      RoleSessionName: request.sessionName,
      ...(request.externalId === undefined ? {} : { ExternalId: request.externalId }),
    },
    masterCredentials: request.base,
    // The STS endpoint of the deployment's region; AWS_ENDPOINT_URL_STS overrides it (SDK endpoint settings).
    clientConfig: { region: request.region },
  });
  return provider();
}

/**
 * 502 `upstream_auth_failed`: the gateway has no credential for the deployment. The detail names the
 * source and the error's name and STS code: the SDK's message may quote a profile or a role.
 */
function unavailable(source: CredentialSource, deploymentId: string, error: unknown): GatewayError {
  const { name, Code } = (error ?? {}) as { name?: unknown; Code?: unknown };
  return new GatewayError('upstream_auth_failed', {
    message: 'The gateway could not obtain credentials for the upstream provider.',
    detail: {
      deployment: deploymentId,
      credentialSource: source,
      reason: typeof name === 'string' ? name : 'unknown',
      ...(typeof Code === 'string' ? { code: Code } : {}),
    },
  });
}
