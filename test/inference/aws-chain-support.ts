/**
 * What the Bedrock credential-chain suites share: a process environment that points the AWS SDK's
 * default chain at one source only (no shared files, no instance metadata unless asked), a gateway,
 * and a call through the official `openai` client, plain and streamed, that must reach the Bedrock
 * fake signed with the credentials the chain gave.
 *
 * The SDK's chain keeps the first credentials it finds for the life of the process, so each source
 * (environment, web identity, instance metadata, container) has its own test file.
 */
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import type { AwsCredentials } from '../../src/providers/bedrock/sigv4.ts';
import { BedrockFake } from '../fakes/bedrock-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { assertPlainAndStreamedEcho, createDeployment, createKey, openaiClient } from './support.ts';

/** Clears every variable the chain reads, then sets `env`; nothing on this machine leaks in. */
function setAwsEnvironment(env: Record<string, string>): void {
  for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) delete process.env[name];
  Object.assign(process.env, {
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws/credentials',
    AWS_CONFIG_FILE: '/nonexistent/aws/config',
    AWS_EC2_METADATA_DISABLED: 'true',
    ...env,
  });
}

/** The public model of the keyless deployment `startChain` creates. */
export const CHAIN_MODEL = 'chain';

export interface Chain {
  gw: TestGateway;
  client: OpenAI;
  /** A Bedrock fake that accepts only the credentials the chain should find. */
  bedrock: BedrockFake;
  close(): Promise<void>;
}

/** Sets the environment, then starts the Bedrock fake, a gateway and a keyless deployment `chain`. */
export async function startChain(
  credentials: Required<AwsCredentials>,
  env: Record<string, string>,
  region = 'us-east-1',
): Promise<Chain> {
  setAwsEnvironment(env);
  const bedrock = await BedrockFake.start({ credentials, region });
  const gw = await startTestGateway();
  const client = openaiClient(gw, await createKey(gw));
  await keylessBedrock(gw, CHAIN_MODEL, bedrock);
  return {
    gw,
    client,
    bedrock,
    close: async () => {
      await gw.close();
      await bedrock.close();
    },
  };
}

/** A Bedrock deployment without a stored key: the chain (or a role on top of it) signs its calls. */
export async function keylessBedrock(
  gw: TestGateway,
  publicModel: string,
  bedrock: BedrockFake,
  options: Record<string, unknown> = {},
): Promise<void> {
  await createDeployment(gw, {
    publicModel,
    provider: 'bedrock',
    upstreamModel: 'anthropic.claude-3-5-sonnet-20241022-v2:0',
    baseUrl: bedrock.baseUrl,
    providerOptions: { region: bedrock.region, ...options },
  });
}

/** A plain and a streamed chat call, each answered by the fake, which saw `credentials` sign them. */
export async function assertSignedBy(
  client: OpenAI,
  model: string,
  bedrock: BedrockFake,
  credentials: AwsCredentials,
): Promise<void> {
  bedrock.reset();
  await assertPlainAndStreamedEcho(client, model);
  assert.equal(bedrock.requests.length, 2);
  for (const request of bedrock.requests) {
    assert.match(String(request.headers.authorization), new RegExp(`Credential=${credentials.accessKeyId}/`));
    assert.equal(request.headers['x-amz-security-token'], credentials.sessionToken);
  }
}
