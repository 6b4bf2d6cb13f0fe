/**
 * Microsoft Entra ID on port 0, over HTTPS with the test certificate (tls-certificate.ts), as
 * `@azure/identity` (through MSAL) reaches it when `authorityHost` names it:
 *
 * - `GET /{tenant}/v2.0/.well-known/openid-configuration`: the tenant's metadata (OpenID Connect
 *   Discovery 1.0), whose `token_endpoint` is below.
 * - `POST /{tenant}/oauth2/v2.0/token`: the client credentials grant (Microsoft identity platform,
 *   "OAuth 2.0 client credentials flow"), with a `client_secret` (an app registration's secret) or a
 *   `client_assertion` of type `urn:ietf:params:oauth:client-assertion-type:jwt-bearer` (workload
 *   identity federation: the Kubernetes service-account token from AZURE_FEDERATED_TOKEN_FILE).
 * - `GET /msi/token`: App Service's managed identity endpoint (the `IDENTITY_ENDPOINT` with the
 *   `X-IDENTITY-HEADER` secret; "Managed identities for App Service", REST protocol
 *   `api-version=2019-08-01`).
 *
 * Every grant must ask for one scope or resource, Cognitive Services'; the tokens it issues are
 * opaque, unique, and known to `issued()`, which the Azure OpenAI fake consults.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeReply, FakeResponder } from './fake-responder.ts';
import { FakeServer, type RecordedRequest } from './fake-server.ts';
import { testCertificate } from './tls-certificate.ts';

const COGNITIVE_SERVICES = 'https://cognitiveservices.azure.com';
const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** How a token was obtained, for the tests to assert. */
export type EntraGrant = 'client_secret' | 'client_assertion' | 'managed_identity';

export interface EntraTokenRequest {
  tenant: string;
  clientId: string;
  grant: EntraGrant;
}

export class EntraFake extends FakeServer {
  readonly #secrets = new Map<string, string>();
  readonly #assertions = new Map<string, string>();
  readonly #issued = new Set<string>();
  /** What each issued token request was, in order. */
  readonly grants: EntraTokenRequest[] = [];
  /** The secret App Service's managed identity endpoint asks for. */
  readonly identityHeader = `idh-${randomBytes(8).toString('hex')}`;
  /** Seconds each token lives. */
  expiresInSeconds = 3600;

  constructor() {
    super((request, responder) => this.#route(request, responder), undefined, testCertificate());
  }

  /** An app registration (client id) with a client secret this tenant accepts. */
  allowSecret(clientId: string, secret: string): void {
    this.#secrets.set(clientId, secret);
  }

  /**
   * A federated credential for the app: a Kubernetes service-account token this tenant accepts,
   * written to a file, and the variables AKS's workload identity webhook sets on a pod to name it.
   */
  workloadIdentityEnv(tenantId: string, clientId: string): Record<string, string> {
    const assertion = `eyJhbGciOiJSUzI1NiJ9.${randomBytes(12).toString('base64url')}.sig`;
    this.#assertions.set(clientId, assertion);
    const file = join(mkdtempSync(join(tmpdir(), 'switchyard-wi-')), 'token');
    writeFileSync(file, assertion);
    return {
      AZURE_TENANT_ID: tenantId,
      AZURE_CLIENT_ID: clientId,
      AZURE_FEDERATED_TOKEN_FILE: file,
      AZURE_AUTHORITY_HOST: this.url,
    };
  }

  /** Whether a bearer token is one this tenant issued. */
  issued(token: string): boolean {
    return this.#issued.has(token);
  }

  get issuedTokens(): string[] {
    return [...this.#issued];
  }

  /** The App Service managed identity endpoint, for IDENTITY_ENDPOINT. */
  get identityEndpoint(): string {
    return `${this.url}/msi/token`;
  }

  #route(request: RecordedRequest, res: FakeResponder): void {
    res.send(this.#answer(request));
  }

  #answer(request: RecordedRequest): FakeReply {
    if (request.method === 'GET' && request.path === '/msi/token') return this.#managedIdentity(request);
    const match = /^\/([^/]+)\/(v2\.0\/\.well-known\/openid-configuration|oauth2\/v2\.0\/token)$/.exec(
      request.path,
    );
    if (match === null) return { status: 404, body: { error: 'not_found' } };
    const [, tenant, what] = match;
    if (what.startsWith('v2.0')) return { status: 200, body: this.#metadata(tenant) };
    if (request.method !== 'POST') return { status: 405, body: { error: 'invalid_request' } };
    return this.#token(tenant, new URLSearchParams(request.rawBody));
  }

  #metadata(tenant: string): Record<string, unknown> {
    const base = `${this.url}/${tenant}`;
    return {
      issuer: `${base}/v2.0`,
      token_endpoint: `${base}/oauth2/v2.0/token`,
      authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
      end_session_endpoint: `${base}/oauth2/v2.0/logout`,
      jwks_uri: `${base}/discovery/v2.0/keys`,
      response_types_supported: ['code', 'id_token', 'token'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt'],
    };
  }

  #token(tenant: string, form: URLSearchParams): FakeReply {
    if (form.get('grant_type') !== 'client_credentials') return entraError('unsupported_grant_type');
    const clientId = form.get('client_id') ?? '';
    if (form.get('scope')?.split(' ').includes(`${COGNITIVE_SERVICES}/.default`) !== true) {
      return entraError('invalid_scope', 'AADSTS70011: The provided value for scope is not valid.');
    }
    const secret = form.get('client_secret');
    const assertion = form.get('client_assertion');
    let grant: EntraGrant;
    if (secret !== null && this.#secrets.get(clientId) === secret) grant = 'client_secret';
    else if (
      assertion !== null &&
      form.get('client_assertion_type') === JWT_BEARER_ASSERTION &&
      this.#assertions.get(clientId) === assertion
    ) {
      grant = 'client_assertion';
    } else {
      return entraError('invalid_client', 'AADSTS7000215: Invalid client secret provided.', 401);
    }
    this.grants.push({ tenant, clientId, grant });
    return {
      status: 200,
      body: {
        token_type: 'Bearer',
        expires_in: this.expiresInSeconds,
        ext_expires_in: this.expiresInSeconds,
        access_token: this.#issue(),
      },
    };
  }

  #managedIdentity(request: RecordedRequest): FakeReply {
    if (request.headers['x-identity-header'] !== this.identityHeader) {
      return { status: 401, body: { error: 'unauthorized' } };
    }
    if (request.query.resource !== COGNITIVE_SERVICES || request.query['api-version'] !== '2019-08-01') {
      return { status: 400, body: { error: 'invalid_resource' } };
    }
    this.grants.push({ tenant: '', clientId: request.query.client_id ?? '', grant: 'managed_identity' });
    return {
      status: 200,
      body: {
        access_token: this.#issue(),
        expires_on: String(Math.floor(Date.now() / 1000) + this.expiresInSeconds),
        resource: COGNITIVE_SERVICES,
        token_type: 'Bearer',
      },
    };
  }

  #issue(): string {
    const token = `entra-fake-${this.#issued.size + 1}-${randomBytes(24).toString('hex')}`;
    this.#issued.add(token);
    return token;
  }
}

function entraError(error: string, description?: string, status = 400): FakeReply {
  return { status, body: { error, error_description: description ?? error, error_codes: [] } };
}
