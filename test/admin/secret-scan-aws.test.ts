/**
 * Issue 34 item 6: credentials the gateway fetches rather than stores stay secret too. Bedrock
 * deployments sign with the AWS default chain (environment credentials), with a role assumed on
 * the chain and on a stored key through the local STS, and one role is refused; then the secret
 * keys, the session tokens, the stored key and every signature the gateway sent are looked for in
 * every admin answer, every log line and every stored value.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AwsStsFake } from '../fakes/aws-sts-fake.ts';
import { BedrockFake } from '../fakes/bedrock-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { assertNowhere, pieces } from './secret-scan-support.ts';
import { AdminClient, chat } from './support.ts';

const REGION = 'us-east-1';
const hex = () => randomBytes(20).toString('hex');
const ENV = { accessKeyId: 'ASIAENVSCAN00001', secretAccessKey: hex(), sessionToken: hex() };
const ROLE = { accessKeyId: 'ASIAROLESCAN0001', secretAccessKey: hex(), sessionToken: hex() };
const STORED = { accessKeyId: 'AKIDSTOREDSCAN01', secretAccessKey: hex() };
const ROLE_ARN = 'arn:aws:iam::123456789012:role/scanned';
const GUARDED_ROLE_ARN = 'arn:aws:iam::123456789012:role/guarded';

for (const variant of ['b', 'a'] as const) {
  describe(`fetched AWS credentials and signatures are shown nowhere (variant ${variant})`, () => {
    let sts: AwsStsFake;
    let envBedrock: BedrockFake;
    let roleBedrock: BedrockFake;
    let gw: TestGateway;
    let admin: AdminClient;

    before(async () => {
      sts = await new AwsStsFake({
        region: REGION,
        callers: [ENV, STORED],
        roles: [
          { roleArn: ROLE_ARN, issues: ROLE },
          { roleArn: GUARDED_ROLE_ARN, externalId: 'the-right-id', issues: ROLE },
        ],
      }).start();
      for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) delete process.env[name];
      Object.assign(process.env, {
        AWS_ACCESS_KEY_ID: ENV.accessKeyId,
        AWS_SECRET_ACCESS_KEY: ENV.secretAccessKey,
        AWS_SESSION_TOKEN: ENV.sessionToken,
        AWS_ENDPOINT_URL_STS: sts.url,
        AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws/credentials',
        AWS_CONFIG_FILE: '/nonexistent/aws/config',
        AWS_EC2_METADATA_DISABLED: 'true',
      });
      envBedrock = await BedrockFake.start({ credentials: ENV, region: REGION });
      roleBedrock = await BedrockFake.start({ credentials: ROLE, region: REGION });
      gw = await startTestGateway({ env: { GATEWAY_VARIANT: variant, LOG_LEVEL: 'trace' } });
      admin = new AdminClient(gw);
    });
    after(async () => {
      await gw.close();
      await Promise.all([sts.close(), envBedrock.close(), roleBedrock.close()]);
    });

    const deploy = async (publicModel: string, bedrock: BedrockFake, fields: Record<string, unknown>) => {
      const created = await admin.post('/admin/deployments', {
        publicModel,
        provider: 'bedrock',
        upstreamModel: 'anthropic.claude-3-5-sonnet-20241022-v2:0',
        baseUrl: bedrock.baseUrl,
        ...fields,
      });
      assert.equal(created.status, 201, created.raw);
    };

    it('signs with the chain and with roles, refuses one, then scans answers, logs and the database', async () => {
      await deploy('aws-chain', envBedrock, { providerOptions: { region: REGION } });
      await deploy('aws-role', roleBedrock, { providerOptions: { region: REGION, roleArn: ROLE_ARN } });
      const storedKey = `${STORED.accessKeyId}:${STORED.secretAccessKey}`;
      const guarded = { region: REGION, roleArn: GUARDED_ROLE_ARN, externalId: 'the-right-id' };
      await deploy('aws-key-role', roleBedrock, { apiKey: storedKey, providerOptions: guarded });
      await deploy('aws-refused', roleBedrock, { providerOptions: { ...guarded, externalId: 'a-wrong-id' } });
      const resolved = await admin.post('/admin/deployments/resolve', {
        publicModel: 'r',
        provider: 'bedrock',
        upstreamModel: 'm',
        apiKey: storedKey,
        providerOptions: guarded,
      });
      assert.equal(resolved.status, 200);

      for (const model of ['aws-chain', 'aws-role', 'aws-key-role']) {
        const answer = await chat(gw, gw.masterKey, model);
        assert.equal(answer.status, 200, `${model}: ${answer.raw}`);
      }
      assert.equal((await chat(gw, gw.masterKey, 'aws-refused')).status, 502);
      const refused = (call: URLSearchParams) => call.get('ExternalId') === 'a-wrong-id';
      assert.equal(sts.calls('AssumeRole').filter((call) => !refused(call)).length, 2, 'two roles granted');
      assert.ok(sts.calls('AssumeRole').some(refused), 'one refused');
      assert.equal((await admin.get('/admin/deployments')).status, 200);
      await gw.gateway.shutdown(); // flushes queued records, so the tables hold everything

      const signatures = [...envBedrock.requests, ...roleBedrock.requests].map(
        (request) => /Signature=([0-9a-f]{64})/.exec(String(request.headers.authorization))?.[1] ?? '',
      );
      assert.equal(signatures.filter((signature) => signature !== '').length, 3, 'three signed calls');
      const secrets = [ENV.secretAccessKey, ENV.sessionToken, ROLE.secretAccessKey, ROLE.sessionToken];
      const needles = [...secrets, STORED.secretAccessKey, ...signatures].flatMap((secret) => [
        secret,
        ...pieces(secret),
      ]);
      await assertNowhere(gw, admin.answers, needles, 'aws-role');
    });
  });
}
