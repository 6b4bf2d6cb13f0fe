/**
 * Vertex tokens through the real google-auth-library against the local OAuth token endpoint: a
 * deployment's service-account key, application default credentials (GOOGLE_APPLICATION_CREDENTIALS),
 * and the cache's refresh before expiry by the injected clock.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GoogleOAuthFake } from '../../../test/fakes/google-oauth-fake.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { DeploymentTarget } from '../types.ts';
import { TOKEN_REFRESH_BEFORE_EXPIRY_MS, VertexTokens } from './vertex-tokens.ts';

const target = (apiKey: string | null, id = 'dep_vertex'): DeploymentTarget => ({
  id,
  provider: 'vertex',
  upstreamModel: 'gemini-2.5-flash',
  apiKey,
  baseUrl: null,
  providerOptions: { project: 'switchyard-test', region: 'us-central1' },
});

describe('VertexTokens', () => {
  let oauth: GoogleOAuthFake;
  before(async () => {
    oauth = await new GoogleOAuthFake().start();
  });
  after(() => oauth.close());

  test('a service-account key gets a token at its token_uri, cached until the refresh margin', async () => {
    oauth.reset();
    const { keyFile } = oauth.serviceAccount('cached');
    let clock = new Date();
    const tokens = new VertexTokens({ now: () => clock });
    const [first, second] = await Promise.all([
      tokens.tokenFor(target(keyFile)),
      tokens.tokenFor(target(keyFile)),
    ]);
    assert.equal(first, second);
    assert.ok(oauth.issued(first));
    assert.equal(oauth.tokenRequests.length, 1, 'concurrent calls share one token request');
    const expiry = Date.now() + oauth.expiresInSeconds * 1000;
    clock = new Date(expiry - TOKEN_REFRESH_BEFORE_EXPIRY_MS - 60_000);
    assert.equal(await tokens.tokenFor(target(keyFile)), first, 'outside the margin: cached');
    clock = new Date(expiry - TOKEN_REFRESH_BEFORE_EXPIRY_MS + 60_000);
    const refreshed = await tokens.tokenFor(target(keyFile));
    assert.notEqual(refreshed, first, 'inside the margin: a new token before the old one expires');
    assert.equal(oauth.tokenRequests.length, 2);
  });

  test('without a key, application default credentials are used', async () => {
    oauth.reset();
    const { keyFile } = oauth.serviceAccount('workload');
    const file = join(mkdtempSync(join(tmpdir(), 'switchyard-adc-')), 'key.json');
    writeFileSync(file, keyFile);
    process.env.GOOGLE_APPLICATION_CREDENTIALS = file;
    try {
      const token = await new VertexTokens().tokenFor(target(null));
      assert.ok(oauth.issued(token));
    } finally {
      delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
    }
  });

  test('a key the endpoint does not trust is upstream_auth_failed, without the key in it', async () => {
    const stranger = new GoogleOAuthFake();
    await stranger.start();
    try {
      // Signed by an account the fake at `token_uri` (oauth) never issued.
      const { keyFile } = stranger.serviceAccount('stranger');
      const untrusted = JSON.stringify({ ...JSON.parse(keyFile), token_uri: `${oauth.url}/token` });
      await assert.rejects(new VertexTokens().tokenFor(target(untrusted)), (error: GatewayError) => {
        assert.equal(error.code, 'upstream_auth_failed');
        assert.match(JSON.stringify(error.detail), /"credentialSource":"google-service-account"/);
        assert.ok(
          !JSON.stringify(error.detail).includes('PRIVATE KEY') && !error.message.includes('PRIVATE'),
        );
        return true;
      });
    } finally {
      await stranger.close();
    }
  });
});
