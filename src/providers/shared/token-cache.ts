/**
 * Bearer tokens a cloud's identity service issues (Google OAuth for Vertex AI, Microsoft Entra ID
 * for Azure OpenAI), kept in memory per deployment and credential, and fetched again 5 minutes
 * before they expire by the injected clock. One fetch however many calls wait for it; a refresh
 * that fails while the old token still works keeps the old one.
 */
import { createHash } from 'node:crypto';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CredentialSource, DeploymentTarget } from '../types.ts';

export const TOKEN_REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

export interface AccessToken {
  token: string;
  /** Epoch milliseconds; absent when the library did not say. */
  expiresAt?: number;
}

export interface TokenCacheOptions {
  now?: () => Date;
  /** Fetches a fresh token for a deployment (its credential and options). */
  fetch: (target: DeploymentTarget) => Promise<AccessToken>;
  /** The error a call meets when no token can be had; it must carry no credential and no token. */
  failure: (target: DeploymentTarget, error: unknown) => GatewayError;
}

interface CachedToken {
  token: AccessToken | null;
  pending: Promise<AccessToken> | null;
}

export class TokenCache {
  readonly #now: () => Date;
  readonly #fetch: TokenCacheOptions['fetch'];
  readonly #failure: TokenCacheOptions['failure'];
  readonly #tokens = new Map<string, CachedToken>();

  constructor(options: TokenCacheOptions) {
    this.#now = options.now ?? (() => new Date());
    this.#fetch = options.fetch;
    this.#failure = options.failure;
  }

  /** The bearer token for a call on `target`; throws the `failure` error when none can be had. */
  async tokenFor(target: DeploymentTarget): Promise<string> {
    const key = cacheKey(target);
    const cached = this.#tokens.get(key) ?? { token: null, pending: null };
    this.#tokens.set(key, cached);
    if (cached.token !== null && !this.#needsRefresh(cached.token)) return cached.token.token;
    cached.pending ??= this.#fetchFresh(target, cached);
    try {
      return (await cached.pending).token;
    } catch (error) {
      const token = cached.token;
      if (token !== null && (token.expiresAt ?? 0) > this.#now().getTime()) return token.token;
      throw error;
    }
  }

  #needsRefresh(token: AccessToken): boolean {
    return (
      token.expiresAt === undefined ||
      token.expiresAt - this.#now().getTime() < TOKEN_REFRESH_BEFORE_EXPIRY_MS
    );
  }

  /** A deployment whose credential changed, or that was deleted, leaves its entry behind; expired ones go. */
  #dropExpired(): void {
    const now = this.#now().getTime();
    for (const [key, entry] of this.#tokens) {
      if (entry.pending === null && (entry.token === null || (entry.token.expiresAt ?? 0) <= now)) {
        this.#tokens.delete(key);
      }
    }
  }

  async #fetchFresh(target: DeploymentTarget, cached: CachedToken): Promise<AccessToken> {
    try {
      cached.token = await this.#fetch(target);
      this.#dropExpired();
      return cached.token;
    } catch (error) {
      throw this.#failure(target, error);
    } finally {
      cached.pending = null;
    }
  }
}

/** One entry per deployment, credential and options (a changed tenant or project is a new identity). */
function cacheKey(target: DeploymentTarget): string {
  const digest = createHash('sha256')
    .update(target.apiKey ?? '')
    .update('\n')
    .update(JSON.stringify(target.providerOptions))
    .digest('base64url');
  return `${target.id}\n${digest}`;
}

/**
 * 502 `upstream_auth_failed` for a credential that gave no token; the detail names the source and
 * the error's name, never its text (which may quote the credential or the identity service's answer).
 */
export function credentialUnavailable(
  target: DeploymentTarget,
  credentialSource: CredentialSource,
  error: unknown,
): GatewayError {
  const { name } = (error ?? {}) as { name?: unknown };
  return new GatewayError('upstream_auth_failed', {
    message: 'The gateway could not obtain credentials for the upstream provider.',
    detail: {
      deployment: target.id,
      credentialSource,
      reason: typeof name === 'string' ? name : 'unknown',
    },
  });
}
