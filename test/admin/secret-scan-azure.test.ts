/**
 * Issue 34 item 6 for Azure OpenAI with Entra ID: an app registration's client secret is
 * write-only like any key, and neither it nor the Entra tokens obtained with it appear in an admin
 * answer, a log line or a stored value, after calls that succeed (chat and Responses) and a token
 * request the authority refuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EntraFake } from '../fakes/entra-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { trustInThisProcess } from '../fakes/tls-certificate.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { assertNowhere, pieces } from './secret-scan-support.ts';
import { AdminClient, chat } from './support.ts';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '0f1e2d3c-4b5a-4697-8897-a6b5c4d3e2f1';
const SECRET = 'Q8~entra-scan-secret-7f3a9c1e5b2d4086af17';
const REFUSED = 'Zk~entra-refused-secret-2c8e4a6b0d1f3957be';

for (const variant of ['b', 'a'] as const) {
  describe(`Entra client secrets and tokens are shown nowhere (variant ${variant})`, () => {
    let entra: EntraFake;
    let azure: OpenAIFake;
    let gw: TestGateway;
    let admin: AdminClient;

    before(async () => {
      trustInThisProcess();
      entra = await new EntraFake().start();
      entra.allowSecret(CLIENT, SECRET);
      azure = await new OpenAIFake({ azureBearer: (token) => entra.issued(token) }).start();
      gw = await startTestGateway({ env: { GATEWAY_VARIANT: variant, LOG_LEVEL: 'trace' } });
      admin = new AdminClient(gw);
    });
    after(async () => {
      await gw.close();
      await Promise.all([azure.close(), entra.close()]);
    });

    it('drives the secret through every admin path and calls, then scans answers, logs and the database', async () => {
      const body = (publicModel: string, apiKey: string) => ({
        publicModel,
        provider: 'azure',
        upstreamModel: 'gpt-4o-mini',
        apiKey,
        baseUrl: azure.url,
        providerOptions: {
          entra: { tenantId: TENANT, clientId: CLIENT, authorityHost: entra.url },
          responsesApi: true,
        },
      });
      const created = await admin.post('/admin/deployments', body('az-entra', SECRET));
      assert.equal(created.status, 201);
      assert.equal((await admin.post('/admin/deployments', body('az-refused', REFUSED))).status, 201);
      assert.equal((await admin.post('/admin/deployments/resolve', body('r', SECRET))).status, 200);
      assert.equal((await admin.post('/admin/deployments', { ...body('x', SECRET), weight: 0 })).status, 400);
      assert.equal(
        (await admin.patch(`/admin/deployments/${created.body.id}`, { apiKey: SECRET })).status,
        200,
      );
      assert.equal((await admin.get('/admin/deployments')).status, 200);

      assert.equal((await chat(gw, gw.masterKey, 'az-entra')).status, 200);
      const responses = await fetch(`${gw.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'az-entra', input: 'scan me' }),
      });
      assert.equal(responses.status, 200);
      assert.equal((await chat(gw, gw.masterKey, 'az-refused')).status, 502);
      assert.ok(entra.issuedTokens.length >= 1, 'tokens were issued and used');
      await gw.gateway.shutdown(); // flushes queued records, so the tables hold everything

      const needles = [
        ...pieces(SECRET),
        ...pieces(REFUSED),
        ...entra.issuedTokens.flatMap((token) => [token, ...pieces(token)]),
      ];
      await assertNowhere(gw, admin.answers, needles, 'az-entra');
    });
  });
}
