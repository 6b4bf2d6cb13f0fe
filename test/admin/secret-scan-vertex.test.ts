/**
 * Issue 34 item 6 for Vertex AI: a service-account JSON key is write-only like any key, and neither
 * it nor the OAuth tokens obtained with it appear in an admin answer, a log line or a stored value,
 * after calls that succeed and a token request that is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { GeminiFake } from '../fakes/gemini-fake.ts';
import { GoogleOAuthFake } from '../fakes/google-oauth-fake.ts';
import { VertexFake } from '../fakes/vertex-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { assertNowhere, pieces } from './secret-scan-support.ts';
import { AdminClient, chat } from './support.ts';

const ANTHROPIC_KEY = 'sk-ant-vertex-scan-0001';

for (const variant of ['b', 'a'] as const) {
  describe(`Vertex keys and tokens are shown nowhere (variant ${variant})`, () => {
    let oauth: GoogleOAuthFake;
    let stranger: GoogleOAuthFake;
    let gemini: GeminiFake;
    let anthropic: AnthropicFake;
    let vertex: VertexFake;
    let gw: TestGateway;
    let admin: AdminClient;

    before(async () => {
      oauth = await new GoogleOAuthFake().start();
      stranger = await new GoogleOAuthFake().start();
      gemini = await GeminiFake.start();
      anthropic = await new AnthropicFake({ apiKey: ANTHROPIC_KEY }).start();
      vertex = await new VertexFake({ oauth, gemini, anthropic, anthropicKey: ANTHROPIC_KEY }).start();
      gw = await startTestGateway({ env: { GATEWAY_VARIANT: variant, LOG_LEVEL: 'trace' } });
      admin = new AdminClient(gw);
    });
    after(async () => {
      await gw.close();
      await Promise.all([vertex.close(), oauth.close(), stranger.close(), gemini.close(), anthropic.close()]);
    });

    it('drives the key through every admin path and calls, then scans answers, logs and the database', async () => {
      const trusted = oauth.serviceAccount('scanned');
      // A key the token endpoint at its token_uri refuses: signed by an account it does not know.
      const refused = JSON.stringify({
        ...JSON.parse(stranger.serviceAccount('refused').keyFile),
        token_uri: `${oauth.url}/token`,
      });
      const body = (publicModel: string, upstreamModel: string, apiKey: string) => ({
        publicModel,
        provider: 'vertex',
        upstreamModel,
        apiKey,
        baseUrl: vertex.url,
        providerOptions: { project: 'switchyard-test', region: 'us-central1' },
      });
      assert.equal(
        (await admin.post('/admin/deployments', body('v-gemini', 'gemini-2.5-flash', trusted.keyFile)))
          .status,
        201,
      );
      const claude = await admin.post(
        '/admin/deployments',
        body('v-claude', 'claude-sonnet-4-5@20250929', trusted.keyFile),
      );
      assert.equal(claude.status, 201);
      assert.equal(
        (await admin.post('/admin/deployments', body('v-refused', 'gemini-2.5-flash', refused))).status,
        201,
      );
      assert.equal(
        (await admin.post('/admin/deployments/resolve', body('r', 'gemini-2.5-flash', trusted.keyFile)))
          .status,
        200,
      );
      const bad = await admin.post('/admin/deployments', {
        ...body('x', 'gemini-2.5-flash', trusted.keyFile),
        weight: 0,
      });
      assert.equal(bad.status, 400);
      assert.equal(
        (await admin.patch(`/admin/deployments/${claude.body.id}`, { apiKey: trusted.keyFile })).status,
        200,
      );
      assert.equal((await admin.get('/admin/deployments')).status, 200);

      assert.equal((await chat(gw, gw.masterKey, 'v-gemini')).status, 200);
      assert.equal((await chat(gw, gw.masterKey, 'v-claude')).status, 200);
      assert.equal((await chat(gw, gw.masterKey, 'v-refused')).status, 502);
      assert.ok(oauth.issuedTokens.length >= 2, 'tokens were issued and used');
      await gw.gateway.shutdown(); // flushes queued records, so the tables hold everything

      const privateKeyBody = (keyFile: string) =>
        String(JSON.parse(keyFile).private_key).replace(/-----[A-Z ]+-----|\s/g, '');
      const needles = [
        ...pieces(privateKeyBody(trusted.keyFile)),
        ...pieces(privateKeyBody(refused)),
        ...oauth.issuedTokens.flatMap((token) => [token, ...pieces(token)]),
      ];
      await assertNowhere(gw, admin.answers, needles, 'v-gemini');
    });
  });
}
