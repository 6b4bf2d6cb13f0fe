/**
 * Bedrock deployments without a static key (issue 34): credentials from the AWS default chain's
 * environment source, and roles assumed through the local STS fake (AWS_ENDPOINT_URL_STS) on top
 * of the chain or of a stored key, through the official `openai` client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { AwsStsFake } from '../fakes/aws-sts-fake.ts';
import { BedrockFake } from '../fakes/bedrock-fake.ts';
import { assertSignedBy, CHAIN_MODEL, type Chain, keylessBedrock, startChain } from './aws-chain-support.ts';
import { admin, createDeployment } from './support.ts';

const REGION = 'us-east-1';
const ENV_CREDENTIALS = {
  accessKeyId: 'ASIAENVKEY00001',
  secretAccessKey: 'env/secret+access+key',
  sessionToken: 'env-session-token-0001',
};
const STORED_KEY = { accessKeyId: 'AKIDSTOREDKEY001', secretAccessKey: 'stored/secret+key' };
const ROLE_ARN = 'arn:aws:iam::123456789012:role/bedrock-invoker';
const PARTNER_ROLE_ARN = 'arn:aws:iam::210987654321:role/partner-bedrock';
const ROLE_CREDENTIALS = {
  accessKeyId: 'ASIAROLEKEY00001',
  secretAccessKey: 'role/secret+access+key',
  sessionToken: 'role-session-token-0001',
};

describe('Bedrock with the AWS default chain (environment) and assumed roles', () => {
  let chain: Chain;
  let roleBedrock: BedrockFake;
  let sts: AwsStsFake;

  before(async () => {
    sts = await new AwsStsFake({
      region: REGION,
      callers: [ENV_CREDENTIALS, STORED_KEY],
      roles: [
        { roleArn: ROLE_ARN, issues: ROLE_CREDENTIALS },
        { roleArn: PARTNER_ROLE_ARN, externalId: 'partner-external-id', issues: ROLE_CREDENTIALS },
      ],
    }).start();
    chain = await startChain(ENV_CREDENTIALS, {
      AWS_ACCESS_KEY_ID: ENV_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ENV_CREDENTIALS.secretAccessKey,
      AWS_SESSION_TOKEN: ENV_CREDENTIALS.sessionToken,
      AWS_ENDPOINT_URL_STS: sts.url,
    });
    roleBedrock = await BedrockFake.start({ credentials: ROLE_CREDENTIALS, region: REGION });
    // One attempt per call: a refused credential must be the answer, not a retry.
    await admin(chain.gw, 'PUT', '/router-settings', { retries: { maxAttempts: 1, backoffMs: 0 } });
  });
  after(async () => {
    await chain?.close();
    await Promise.all([roleBedrock?.close(), sts?.close()]);
  });

  it('a deployment without a key signs with the environment credentials', async () => {
    await assertSignedBy(chain.client, CHAIN_MODEL, chain.bedrock, ENV_CREDENTIALS);
    assert.equal(sts.requests.length, 0, 'no role: no STS call');
  });

  it('roleArn assumes the role with the chain credentials, once for many calls', async () => {
    sts.reset();
    await keylessBedrock(chain.gw, 'chain-role', roleBedrock, { roleArn: ROLE_ARN });
    await assertSignedBy(chain.client, 'chain-role', roleBedrock, ROLE_CREDENTIALS);
    await assertSignedBy(chain.client, 'chain-role', roleBedrock, ROLE_CREDENTIALS);
    const calls = sts.calls('AssumeRole');
    assert.equal(calls.length, 1, 'the role credentials are cached until near their expiry');
    assert.equal(calls[0].get('RoleArn'), ROLE_ARN);
    assert.match(String(sts.requests[0].headers.authorization), /Credential=ASIAENVKEY00001\//);
  });

  it('roleArn with externalId assumes the role with the stored key as the caller', async () => {
    sts.reset();
    const { id } = await createDeployment(chain.gw, {
      publicModel: 'partner-role',
      provider: 'bedrock',
      upstreamModel: 'anthropic.claude-3-5-sonnet-20241022-v2:0',
      baseUrl: roleBedrock.baseUrl,
      apiKey: `${STORED_KEY.accessKeyId}:${STORED_KEY.secretAccessKey}`,
      providerOptions: { region: REGION, roleArn: PARTNER_ROLE_ARN, externalId: 'partner-external-id' },
    });
    await assertSignedBy(chain.client, 'partner-role', roleBedrock, ROLE_CREDENTIALS);
    const [call] = sts.calls('AssumeRole');
    assert.equal(call.get('ExternalId'), 'partner-external-id');
    assert.equal(call.get('RoleSessionName'), `switchyard-${id}`);
    assert.match(String(sts.requests[0].headers.authorization), /Credential=AKIDSTOREDKEY001\//);
  });

  it('a role STS refuses answers 502 upstream_auth_failed, and Bedrock is never called', async () => {
    roleBedrock.reset();
    await keylessBedrock(chain.gw, 'refused-role', roleBedrock, {
      roleArn: PARTNER_ROLE_ARN,
      externalId: 'not-the-partner-id',
    });
    const error = await chain.client.chat.completions
      .create({ model: 'refused-role', messages: [{ role: 'user', content: 'hello' }] })
      .then(
        () => assert.fail('expected a refusal'),
        (caught: unknown) => caught as InstanceType<typeof OpenAI.APIError>,
      );
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 502);
    assert.equal(error.code, 'upstream_auth_failed');
    const answer = JSON.stringify(error.error);
    for (const secret of [
      ENV_CREDENTIALS.secretAccessKey,
      ENV_CREDENTIALS.sessionToken,
      'not-the-partner-id',
    ]) {
      assert.ok(!answer.includes(secret));
    }
    assert.equal(roleBedrock.requests.length, 0);
  });

  it('resolve names each credential source', async () => {
    const resolve = (providerOptions: Record<string, unknown>, apiKey?: string) =>
      admin<{ credentialSource: string }>(chain.gw, 'POST', '/deployments/resolve', {
        publicModel: 'r',
        provider: 'bedrock',
        upstreamModel: 'anthropic.claude-3-5-sonnet-20241022-v2:0',
        ...(apiKey === undefined ? {} : { apiKey }),
        providerOptions,
      });
    assert.equal((await resolve({ region: REGION })).credentialSource, 'aws-default-chain');
    assert.equal((await resolve({ region: REGION, roleArn: ROLE_ARN })).credentialSource, 'aws-assume-role');
    assert.equal((await resolve({ region: REGION }, 'AKID:SECRET')).credentialSource, 'static-key');
  });
});
