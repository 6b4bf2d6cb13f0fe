/**
 * Bedrock on the AWS default chain's last source, the EC2 instance metadata service (IMDSv2),
 * served by the local metadata fake through AWS_EC2_METADATA_SERVICE_ENDPOINT.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AwsMetadataFake } from '../fakes/aws-metadata-fake.ts';
import { assertSignedBy, CHAIN_MODEL, type Chain, startChain } from './aws-chain-support.ts';

const IMDS_CREDENTIALS = {
  accessKeyId: 'ASIAIMDSKEY00001',
  secretAccessKey: 'imds/secret+access+key',
  sessionToken: 'imds-session-token-0001',
};

describe('Bedrock with instance metadata credentials (IMDSv2)', () => {
  let chain: Chain;
  let metadata: AwsMetadataFake;

  before(async () => {
    metadata = await new AwsMetadataFake({
      roleName: 'gateway-instance',
      credentials: IMDS_CREDENTIALS,
    }).start();
    const env = { AWS_EC2_METADATA_DISABLED: 'false', AWS_EC2_METADATA_SERVICE_ENDPOINT: metadata.url };
    chain = await startChain(IMDS_CREDENTIALS, env);
  });
  after(async () => {
    await chain?.close();
    await metadata?.close();
  });

  it('reads the instance role credentials with a session token and signs with them', async () => {
    await assertSignedBy(chain.client, CHAIN_MODEL, chain.bedrock, IMDS_CREDENTIALS);
    const paths = metadata.requests.map((request) => `${request.method} ${request.path}`);
    assert.ok(paths.includes('PUT /latest/api/token'), 'IMDSv2: a session token first');
    assert.ok(paths.includes('GET /latest/meta-data/iam/security-credentials/gateway-instance'));
  });
});
