/**
 * OAuth access tokens for Vertex AI, through `google-auth-library`: from the deployment's
 * service-account JSON key (its write-only credential), or from the workload's own identity
 * (application default credentials) when it has none. Tokens live in memory only, one per
 * deployment and key, and are fetched again 5 minutes before they expire by the injected clock.
 */
import { createHash } from 'node:crypto';
import { GoogleAuth, gaxios, JWT } from 'google-auth-library';
import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CredentialSource, DeploymentTarget } from '../types.ts';
import { VERTEX_SCOPE } from './vertex-config.ts';

/** The token endpoint google-auth-library posts a service account's signed assertion to. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const TOKEN_REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

/** The fields of a service-account key file the gateway reads ("Create and delete service account keys"). */
const serviceAccountKeySchema = z.looseObject({
  type: z.literal('service_account'),
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  private_key_id: z.string().optional(),
  token_uri: z.url().optional(),
});

export interface AccessToken {
  token: string;
  /** Epoch milliseconds; absent when the library did not say. */
  expiresAt?: number;
}

/** Fetches a fresh token for a key (null: application default credentials). Injectable for tests. */
export type TokenFetcher = (serviceAccountKey: string | null) => Promise<AccessToken>;

interface CachedToken {
  token: AccessToken | null;
  pending: Promise<AccessToken> | null;
}

export class VertexTokens {
  readonly #now: () => Date;
  readonly #fetch: TokenFetcher;
  readonly #tokens = new Map<string, CachedToken>();

  constructor(options: { now?: () => Date; fetch?: TokenFetcher } = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#fetch = options.fetch ?? fetchWithGoogleAuth;
  }

  /** The bearer token for a call on `target`; throws `upstream_auth_failed` when none can be had. */
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

  /** A deployment whose key changed, or that was deleted, leaves its entry behind; expired ones go. */
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
      cached.token = await this.#fetch(target.apiKey);
      this.#dropExpired();
      return cached.token;
    } catch (error) {
      throw unavailable(target, error);
    } finally {
      cached.pending = null;
    }
  }
}

function cacheKey(target: DeploymentTarget): string {
  return `${target.id}\n${createHash('sha256')
    .update(target.apiKey ?? '')
    .digest('base64url')}`;
}

async function fetchWithGoogleAuth(serviceAccountKey: string | null): Promise<AccessToken> {
  if (serviceAccountKey === null) {
    // The credentials file is found by the library (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, the
    // metadata server); a key file among them keeps its own token_uri, as an explicit key does.
    const auth: GoogleAuth = new GoogleAuth({
      scopes: [VERTEX_SCOPE],
      clientOptions: { transporter: transporterFor(() => tokenUriOf(auth.jsonContent)) },
    });
    const client = await auth.getClient();
    const { token } = await client.getAccessToken();
    if (!token) throw new Error('application default credentials gave no token');
    return { token, expiresAt: client.credentials.expiry_date ?? undefined };
  }
  const key = serviceAccountKeySchema.parse(JSON.parse(serviceAccountKey));
  const jwt = new JWT({
    email: key.client_email,
    key: key.private_key,
    keyId: key.private_key_id,
    scopes: [VERTEX_SCOPE],
    transporter: transporterFor(() => key.token_uri),
  });
  const credentials = await jwt.authorize();
  if (!credentials.access_token) throw new Error('the token endpoint gave no access token');
  return { token: credentials.access_token, expiresAt: credentials.expiry_date ?? undefined };
}

/**
 * The key file's own `token_uri` is where its assertion goes (Private Service Connect endpoints, a
 * local fake); google-auth-library posts to Google's fixed endpoint, so its request is redirected.
 */
function transporterFor(tokenUri: () => string | undefined): InstanceType<typeof gaxios.Gaxios> {
  const transporter = new gaxios.Gaxios();
  transporter.interceptors.request.add({
    resolved: async (options) => {
      const target = tokenUri();
      if (target !== undefined && options.url.href === GOOGLE_TOKEN_URL) options.url = new URL(target);
      return options;
    },
  });
  return transporter;
}

function tokenUriOf(json: unknown): string | undefined {
  const tokenUri = (json as { token_uri?: unknown } | null)?.token_uri;
  return typeof tokenUri === 'string' ? tokenUri : undefined;
}

/** 502 `upstream_auth_failed`; the detail names the source and the error's name, never its text. */
function unavailable(target: DeploymentTarget, error: unknown): GatewayError {
  const source: CredentialSource = target.apiKey === null ? 'google-default' : 'google-service-account';
  const { name } = (error ?? {}) as { name?: unknown };
  return new GatewayError('upstream_auth_failed', {
    message: 'The gateway could not obtain credentials for the upstream provider.',
    detail: {
      deployment: target.id,
      credentialSource: source,
      reason: typeof name === 'string' ? name : 'unknown',
    },
  });
}
