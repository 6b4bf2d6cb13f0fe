/**
 * Entra ID tokens through the real `@azure/identity` (and MSAL) against the local HTTPS authority
 * (test/fakes/entra-fake.ts): a client secret, workload identity federation, App Service's managed
 * identity, the cache's refresh before expiry by the injected clock, and a refused secret.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { EntraFake } from '../../../test/fakes/entra-fake.ts';
import { trustInThisProcess } from '../../../test/fakes/tls-certificate.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { TOKEN_REFRESH_BEFORE_EXPIRY_MS } from '../shared/token-cache.ts';
import type { DeploymentTarget } from '../types.ts';
import { AzureEntraTokens } from './azure-entra-tokens.ts';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '0f1e2d3c-4b5a-4697-8897-a6b5c4d3e2f1';
const SECRET = 'entra-client-secret-0001-Q8~xYz';

/** The variables the credentials read, cleared so nothing on this machine leaks in. */
const IDENTITY_ENV = [
  'AZURE_TENANT_ID',
  'AZURE_CLIENT_ID',
  'AZURE_CLIENT_SECRET',
  'AZURE_FEDERATED_TOKEN_FILE',
  'AZURE_AUTHORITY_HOST',
  'IDENTITY_ENDPOINT',
  'IDENTITY_HEADER',
  'MSI_ENDPOINT',
  'IMDS_ENDPOINT',
  'AZURE_POD_IDENTITY_AUTHORITY_HOST',
];

function withEnv<T>(env: Record<string, string>, run: () => Promise<T>): Promise<T> {
  for (const name of IDENTITY_ENV) delete process.env[name];
  Object.assign(process.env, env);
  return run().finally(() => {
    for (const name of IDENTITY_ENV) delete process.env[name];
  });
}

describe('AzureEntraTokens', () => {
  let entra: EntraFake;
  const target = (apiKey: string | null, entraOptions: Record<string, unknown>): DeploymentTarget => ({
    id: 'dep_azure',
    provider: 'azure',
    upstreamModel: 'gpt-4o-mini',
    apiKey,
    baseUrl: 'https://example.openai.azure.com',
    providerOptions: { entra: entraOptions },
  });

  before(async () => {
    trustInThisProcess();
    entra = await new EntraFake().start();
    entra.allowSecret(CLIENT, SECRET);
  });
  beforeEach(() => {
    entra.reset();
    entra.grants.length = 0;
  });
  after(() => entra.close());

  test('a client secret gets a token from the configured authority, cached until the refresh margin', async () => {
    const secretTarget = target(SECRET, { tenantId: TENANT, clientId: CLIENT, authorityHost: entra.url });
    let clock = new Date();
    const tokens = new AzureEntraTokens({ now: () => clock });
    const [first, second] = await Promise.all([tokens.tokenFor(secretTarget), tokens.tokenFor(secretTarget)]);
    assert.equal(first, second);
    assert.ok(entra.issued(first));
    assert.deepEqual(entra.grants, [{ tenant: TENANT, clientId: CLIENT, grant: 'client_secret' }]);
    assert.ok(
      entra.requests.some((r) => r.path === `/${TENANT}/v2.0/.well-known/openid-configuration`),
      "the tenant's metadata is read from the authority itself",
    );
    const expiry = Date.now() + entra.expiresInSeconds * 1000;
    clock = new Date(expiry - TOKEN_REFRESH_BEFORE_EXPIRY_MS - 60_000);
    assert.equal(await tokens.tokenFor(secretTarget), first, 'outside the margin: cached');
    clock = new Date(expiry - TOKEN_REFRESH_BEFORE_EXPIRY_MS + 60_000);
    const refreshed = await tokens.tokenFor(secretTarget);
    assert.notEqual(refreshed, first, 'inside the margin: a new token before the old one expires');
    assert.ok(entra.issued(refreshed));
    assert.equal(entra.grants.length, 2);
  });

  test('without a stored key and with AZURE_FEDERATED_TOKEN_FILE: workload identity federation', async () => {
    const env = entra.workloadIdentityEnv(TENANT, CLIENT);
    const token = await withEnv(env, () => new AzureEntraTokens().tokenFor(target(null, {})));
    assert.ok(entra.issued(token));
    assert.deepEqual(entra.grants, [{ tenant: TENANT, clientId: CLIENT, grant: 'client_assertion' }]);
  });

  test("without a stored key on App Service: the host's managed identity, user-assigned by clientId", async () => {
    const env = { IDENTITY_ENDPOINT: entra.identityEndpoint, IDENTITY_HEADER: entra.identityHeader };
    const token = await withEnv(env, () =>
      new AzureEntraTokens().tokenFor(target(null, { clientId: CLIENT })),
    );
    assert.ok(entra.issued(token));
    assert.deepEqual(entra.grants, [{ tenant: '', clientId: CLIENT, grant: 'managed_identity' }]);
  });

  test('a refused secret is upstream_auth_failed, naming the source, without the secret or the answer', async () => {
    const wrong = 'entra-wrong-secret-0002-Zk~abc';
    await assert.rejects(
      new AzureEntraTokens().tokenFor(
        target(wrong, { tenantId: TENANT, clientId: CLIENT, authorityHost: entra.url }),
      ),
      (error: GatewayError) => {
        assert.equal(error.code, 'upstream_auth_failed');
        const text = `${error.message} ${JSON.stringify(error.detail)}`;
        assert.match(text, /"credentialSource":"azure-entra-id"/);
        assert.ok(!text.includes(wrong) && !text.includes('AADSTS'), text);
        return true;
      },
    );
  });
});
