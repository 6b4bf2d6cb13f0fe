/**
 * Bedrock on the AWS default chain's container source (ECS task roles, EKS Pod Identity): the local
 * metadata fake's container endpoint, through AWS_CONTAINER_CREDENTIALS_FULL_URI with its
 * authorization token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AwsMetadataFake } from '../fakes/aws-metadata-fake.ts';
import { assertSignedBy, CHAIN_MODEL, type Chain, startChain } from './aws-chain-support.ts';

const TASK_CREDENTIALS = {
  accessKeyId: 'ASIATASKKEY00001',
  secretAccessKey: 'task/secret+access+key',
  sessionToken: 'task-session-token-0001',
};
const POD_IDENTITY_TOKEN = 'fake-pod-identity-token';

describe('Bedrock with container credentials', () => {
  let chain: Chain;
  let metadata: AwsMetadataFake;

  before(async () => {
    metadata = await new AwsMetadataFake({
      roleName: 'gateway-task',
      credentials: TASK_CREDENTIALS,
      containerToken: POD_IDENTITY_TOKEN,
    }).start();
    chain = await startChain(TASK_CREDENTIALS, {
      AWS_CONTAINER_CREDENTIALS_FULL_URI: metadata.containerUri,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: POD_IDENTITY_TOKEN,
    });
  });
  after(async () => {
    await chain?.close();
    await metadata?.close();
  });

  it('reads the task credentials with the authorization token and signs with them', async () => {
    await assertSignedBy(chain.client, CHAIN_MODEL, chain.bedrock, TASK_CREDENTIALS);
    assert.equal(metadata.requests.at(-1)?.headers.authorization, POD_IDENTITY_TOKEN);
  });
});
