/**
 * Role credentials through the real SDK (fromTemporaryCredentials) against the local STS fake,
 * reached through the SDK's endpoint override AWS_ENDPOINT_URL_STS; the cache's clock is injected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AwsStsFake } from '../../../test/fakes/aws-sts-fake.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { type AwsCredentialNeed, AwsCredentialSources, REFRESH_BEFORE_EXPIRY_MS } from './aws-credentials.ts';

const REGION = 'eu-west-3';
const BASE = { accessKeyId: 'AKIDBASEKEY0001', secretAccessKey: 'base/secret+key' };
const ROLE_ARN = 'arn:aws:iam::123456789012:role/bedrock-caller';
const ROLE_CREDENTIALS = {
  accessKeyId: 'ASIAROLEKEY0001',
  secretAccessKey: 'role/secret+key',
  sessionToken: 'role-session-token-0001',
};
const HOUR_MS = 3600_000;
/** A refusal the SDK does not retry (it retries 5xx and throttling). */
const DENIED = {
  status: 403,
  headers: { 'content-type': 'text/xml' },
  body: '<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>denied</Message></Error></ErrorResponse>',
};

describe('AwsCredentialSources: assumed roles', () => {
  let sts: AwsStsFake;
  let clock = new Date('2026-11-28T08:00:00Z');
  const now = () => clock;
  const need = (extra: Partial<AwsCredentialNeed> = {}): AwsCredentialNeed => ({
    deploymentId: 'dep_role',
    apiKey: BASE,
    region: REGION,
    roleArn: ROLE_ARN,
    externalId: 'ext-0001',
    ...extra,
  });

  before(async () => {
    sts = await new AwsStsFake({
      region: REGION,
      callers: [BASE],
      roles: [{ roleArn: ROLE_ARN, externalId: 'ext-0001', issues: ROLE_CREDENTIALS }],
    }).start();
    sts.expiresAt = () => new Date(clock.getTime() + HOUR_MS);
    process.env.AWS_ENDPOINT_URL_STS = sts.url;
  });
  after(async () => {
    delete process.env.AWS_ENDPOINT_URL_STS;
    await sts.close();
  });

  test('assumes the role with the base key, the external id and a session named after the deployment', async () => {
    sts.reset();
    const sources = new AwsCredentialSources({ now });
    const { accessKeyId, secretAccessKey, sessionToken } = await sources.credentialsFor(need());
    assert.deepEqual({ accessKeyId, secretAccessKey, sessionToken }, ROLE_CREDENTIALS);
    const [call] = sts.calls('AssumeRole');
    assert.equal(call.get('RoleArn'), ROLE_ARN);
    assert.equal(call.get('ExternalId'), 'ext-0001');
    assert.equal(call.get('RoleSessionName'), 'switchyard-dep_role');
  });

  test('caches the credentials and refreshes them only within the margin before expiry', async () => {
    sts.reset();
    clock = new Date('2026-11-28T08:00:00Z');
    const sources = new AwsCredentialSources({ now });
    await Promise.all([sources.credentialsFor(need()), sources.credentialsFor(need())]);
    assert.equal(sts.calls('AssumeRole').length, 1, 'concurrent calls share one AssumeRole');
    clock = new Date(clock.getTime() + HOUR_MS - REFRESH_BEFORE_EXPIRY_MS - 1000);
    await sources.credentialsFor(need());
    assert.equal(sts.calls('AssumeRole').length, 1, 'still outside the margin: cached');
    clock = new Date(clock.getTime() + 2000);
    await sources.credentialsFor(need());
    assert.equal(sts.calls('AssumeRole').length, 2, 'inside the margin: refreshed before expiry');
  });

  test('a failed refresh keeps credentials that still work; once expired the failure is the answer', async () => {
    sts.reset();
    clock = new Date('2026-11-28T08:00:00Z');
    const sources = new AwsCredentialSources({ now });
    const first = await sources.credentialsFor(need());
    const startOfMargin = clock.getTime() + HOUR_MS - REFRESH_BEFORE_EXPIRY_MS;
    clock = new Date(startOfMargin + 1000);
    sts.enqueue(DENIED);
    assert.equal((await sources.credentialsFor(need())).accessKeyId, first.accessKeyId);
    clock = new Date(startOfMargin + REFRESH_BEFORE_EXPIRY_MS + 1000);
    sts.enqueue(DENIED);
    await assert.rejects(sources.credentialsFor(need()), (error: GatewayError) => {
      assert.equal(error.code, 'upstream_auth_failed');
      return true;
    });
  });

  test('a refusal is upstream_auth_failed naming the source, without the key or the SDK text', async () => {
    const sources = new AwsCredentialSources({ now });
    await assert.rejects(sources.credentialsFor(need({ externalId: 'wrong-id' })), (error: GatewayError) => {
      assert.equal(error.code, 'upstream_auth_failed');
      const detail = JSON.stringify(error.detail);
      assert.match(detail, /"credentialSource":"aws-assume-role"/);
      assert.match(detail, /"code":"AccessDenied"/);
      for (const secret of [BASE.secretAccessKey, BASE.accessKeyId]) {
        assert.ok(!detail.includes(secret) && !error.message.includes(secret));
      }
      return true;
    });
  });

  test('without a role a stored key is used as it is, and no STS call is made', async () => {
    sts.reset();
    const sources = new AwsCredentialSources({ now });
    assert.deepEqual(await sources.credentialsFor(need({ roleArn: undefined, externalId: undefined })), BASE);
    assert.equal(sts.requests.length, 0);
  });
});

describe('AwsCredentialSources: the default chain', () => {
  const ENV = { AWS_ACCESS_KEY_ID: 'AKIDENVKEY0001', AWS_SECRET_ACCESS_KEY: 'env/secret+key' };
  before(() => Object.assign(process.env, ENV));
  after(() => {
    for (const name of Object.keys(ENV)) delete process.env[name];
  });

  // The SDK is imported at the first need: calls arriving together before it is loaded must all
  // get the chain's credentials.
  test('concurrent first calls without a key all get the environment credentials', async () => {
    const sources = new AwsCredentialSources();
    const keyless: AwsCredentialNeed = { deploymentId: 'dep_env', apiKey: null, region: REGION };
    const all = await Promise.all([1, 2, 3].map(() => sources.credentialsFor(keyless)));
    for (const credentials of all) {
      assert.equal(credentials.accessKeyId, ENV.AWS_ACCESS_KEY_ID);
      assert.equal(credentials.secretAccessKey, ENV.AWS_SECRET_ACCESS_KEY);
    }
  });
});
