/**
 * Bedrock on the AWS default chain's web identity source (EKS IRSA): the chain reads the token
 * file and AWS_ROLE_ARN and calls AssumeRoleWithWebIdentity on the local STS fake
 * (AWS_ENDPOINT_URL_STS); the role's credentials sign the Bedrock calls.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AwsStsFake } from '../fakes/aws-sts-fake.ts';
import { assertSignedBy, CHAIN_MODEL, type Chain, startChain } from './aws-chain-support.ts';

const REGION = 'eu-central-1';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/eks-gateway';
const WEB_IDENTITY_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.fake-service-account-token.signature';
const IRSA_CREDENTIALS = {
  accessKeyId: 'ASIAIRSAKEY00001',
  secretAccessKey: 'irsa/secret+access+key',
  sessionToken: 'irsa-session-token-0001',
};

describe('Bedrock with web identity credentials (IRSA)', () => {
  let chain: Chain;
  let sts: AwsStsFake;

  before(async () => {
    sts = await new AwsStsFake({
      region: REGION,
      callers: [],
      roles: [{ roleArn: ROLE_ARN, issues: IRSA_CREDENTIALS }],
      webIdentityToken: WEB_IDENTITY_TOKEN,
    }).start();
    const tokenFile = join(mkdtempSync(join(tmpdir(), 'switchyard-irsa-')), 'token');
    writeFileSync(tokenFile, WEB_IDENTITY_TOKEN);
    const env = {
      AWS_REGION: REGION,
      AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile,
      AWS_ROLE_ARN: ROLE_ARN,
      AWS_ROLE_SESSION_NAME: 'switchyard-gateway',
      AWS_ENDPOINT_URL_STS: sts.url,
    };
    chain = await startChain(IRSA_CREDENTIALS, env, REGION);
  });
  after(async () => {
    await chain?.close();
    await sts?.close();
  });

  it('exchanges the token file for role credentials and signs with them', async () => {
    await assertSignedBy(chain.client, CHAIN_MODEL, chain.bedrock, IRSA_CREDENTIALS);
    const calls = sts.calls('AssumeRoleWithWebIdentity');
    assert.equal(calls.length, 1, 'the chain keeps the credentials');
    assert.equal(calls[0].get('RoleArn'), ROLE_ARN);
    assert.equal(calls[0].get('RoleSessionName'), 'switchyard-gateway');
  });
});
