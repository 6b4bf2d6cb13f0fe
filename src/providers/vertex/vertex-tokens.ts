/**
 * OAuth access tokens for Vertex AI, through `google-auth-library`: from the deployment's
 * service-account JSON key (its write-only credential), or from the workload's own identity
 * (application default credentials) when it has none, cached by the shared token cache
 * (shared/token-cache.ts: in memory only, fetched again before they expire).
 */
import type { GoogleAuth, gaxios } from 'google-auth-library';
import { z } from 'zod';
import { type AccessToken, credentialUnavailable, TokenCache } from '../shared/token-cache.ts';
import type { DeploymentTarget } from '../types.ts';
import { VERTEX_SCOPE } from './vertex-config.ts';

/** The token endpoint google-auth-library posts a service account's signed assertion to. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

// The cache's margin, re-exported for the tests that move the clock across it.
export { TOKEN_REFRESH_BEFORE_EXPIRY_MS } from '../shared/token-cache.ts';

/** The fields of a service-account key file the gateway reads ("Create and delete service account keys"). */
const serviceAccountKeySchema = z.looseObject({
  type: z.literal('service_account'),
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  private_key_id: z.string().optional(),
  token_uri: z.url().optional(),
});

/** Fetches a fresh token for a key (null: application default credentials). Injectable for tests. */
export type TokenFetcher = (serviceAccountKey: string | null) => Promise<AccessToken>;

export class VertexTokens {
  readonly #cache: TokenCache;

  constructor(options: { now?: () => Date; fetch?: TokenFetcher } = {}) {
    const fetch = options.fetch ?? fetchWithGoogleAuth;
    this.#cache = new TokenCache({
      now: options.now,
      fetch: (target) => fetch(target.apiKey),
      failure: (target, error) =>
        credentialUnavailable(
          target,
          target.apiKey === null ? 'google-default' : 'google-service-account',
          error,
        ),
    });
  }

  /** The bearer token for a call on `target`; throws `upstream_auth_failed` when none can be had. */
  tokenFor(target: DeploymentTarget): Promise<string> {
    return this.#cache.tokenFor(target);
  }
}

/**
 * `google-auth-library` is imported at the first token fetch, not at start: it is large (see
 * docs/decisions/hot-path.md, Modules loaded only where used) and a gateway without a Vertex AI
 * deployment never needs it.
 */
async function fetchWithGoogleAuth(serviceAccountKey: string | null): Promise<AccessToken> {
  const library = await import('google-auth-library');
  if (serviceAccountKey === null) {
    // The credentials file is found by the library (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, the
    // metadata server); a key file among them keeps its own token_uri, as an explicit key does.
    const auth: GoogleAuth = new library.GoogleAuth({
      scopes: [VERTEX_SCOPE],
      clientOptions: {
        transporter: transporterFor(library.gaxios.Gaxios, () => tokenUriOf(auth.jsonContent)),
      },
    });
    const client = await auth.getClient();
    const { token } = await client.getAccessToken();
    if (!token) throw new Error('application default credentials gave no token');
    return { token, expiresAt: client.credentials.expiry_date ?? undefined };
  }
  const key = serviceAccountKeySchema.parse(JSON.parse(serviceAccountKey));
  const jwt = new library.JWT({
    email: key.client_email,
    key: key.private_key,
    keyId: key.private_key_id,
    scopes: [VERTEX_SCOPE],
    transporter: transporterFor(library.gaxios.Gaxios, () => key.token_uri),
  });
  const credentials = await jwt.authorize();
  if (!credentials.access_token) throw new Error('the token endpoint gave no access token');
  return { token: credentials.access_token, expiresAt: credentials.expiry_date ?? undefined };
}

/**
 * The key file's own `token_uri` is where its assertion goes (Private Service Connect endpoints, a
 * local fake); google-auth-library posts to Google's fixed endpoint, so its request is redirected.
 */
function transporterFor(
  Gaxios: typeof gaxios.Gaxios,
  tokenUri: () => string | undefined,
): InstanceType<typeof gaxios.Gaxios> {
  const transporter = new Gaxios();
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
