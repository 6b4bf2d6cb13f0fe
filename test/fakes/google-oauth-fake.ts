/**
 * Google's OAuth 2.0 token endpoint for service accounts, on port 0 (Google Identity, "Using OAuth
 * 2.0 for Server to Server Applications"): `POST /token` with
 * `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and a signed assertion (RS256 JWT whose
 * `iss` is the key's `client_email`, `scope` the scopes asked, `aud` the token endpoint) answers
 * `{ access_token, expires_in, token_type }`. The key file's `token_uri` names it.
 */
import { createVerify, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { FakeReply, FakeResponder } from './fake-responder.ts';
import { FakeServer, type RecordedRequest } from './fake-server.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';

export interface FakeServiceAccount {
  clientEmail: string;
  /** The key file, as a deployment's credential (JSON text). */
  keyFile: string;
  publicKey: KeyObject;
}

export class GoogleOAuthFake extends FakeServer {
  readonly #accounts = new Map<string, KeyObject>();
  readonly #issued = new Set<string>();
  #count = 0;
  /** Seconds each token lives. */
  expiresInSeconds = 3600;

  constructor() {
    super((request, responder) => this.#route(request, responder));
  }

  /** A new service account this endpoint trusts, with its key file pointing here. */
  serviceAccount(name: string): FakeServiceAccount {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const clientEmail = `${name}@switchyard-test.iam.gserviceaccount.com`;
    this.#accounts.set(clientEmail, publicKey);
    const keyFile = JSON.stringify({
      type: 'service_account',
      project_id: 'switchyard-test',
      private_key_id: `key-${name}`,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: clientEmail,
      token_uri: `${this.url}/token`,
    });
    return { clientEmail, keyFile, publicKey };
  }

  /** Every token issued, in order. */
  get issuedTokens(): string[] {
    return [...this.#issued];
  }

  /** Whether a bearer token is one this endpoint issued. */
  issued(token: string): boolean {
    return this.#issued.has(token);
  }

  /** The token requests, in order. */
  get tokenRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.path === '/token');
  }

  #route(request: RecordedRequest, res: FakeResponder): void {
    res.send(this.#answer(request));
  }

  #answer(request: RecordedRequest): FakeReply {
    if (request.method !== 'POST' || request.path !== '/token') return { status: 404, body: 'Not Found' };
    const form = new URLSearchParams(request.rawBody);
    if (form.get('grant_type') !== JWT_BEARER) return oauthError('unsupported_grant_type');
    const claims = this.#verified(form.get('assertion') ?? '');
    if (claims === null) return oauthError('invalid_grant', 'Invalid JWT Signature.');
    if (
      !String(claims.scope ?? '')
        .split(' ')
        .includes('https://www.googleapis.com/auth/cloud-platform')
    ) {
      return oauthError('invalid_scope');
    }
    const token = `ya29.fake-${++this.#count}-${Date.now()}`;
    this.#issued.add(token);
    return {
      status: 200,
      body: { access_token: token, expires_in: this.expiresInSeconds, token_type: 'Bearer' },
    };
  }

  /** The assertion's claims when a known account signed it for this audience, else null. */
  #verified(assertion: string): Record<string, unknown> | null {
    const [header, payload, signature] = assertion.split('.');
    if (signature === undefined) return null;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const key = this.#accounts.get(String(claims.iss));
    if (key === undefined || claims.aud !== GOOGLE_TOKEN_AUDIENCE) return null;
    const verifier = createVerify('RSA-SHA256').update(`${header}.${payload}`);
    return verifier.verify(key, Buffer.from(signature, 'base64url')) ? claims : null;
  }
}

function oauthError(error: string, description?: string): FakeReply {
  return {
    status: 400,
    body: { error, ...(description === undefined ? {} : { error_description: description }) },
  };
}
