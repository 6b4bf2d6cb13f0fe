import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { DeploymentTarget } from '../types.ts';
import { converseUrl, parseBedrockCredentials, resolveBedrockEndpoint } from './bedrock-config.ts';

const target = (over: Partial<DeploymentTarget> = {}): DeploymentTarget => ({
  id: 'dep_1',
  provider: 'bedrock',
  upstreamModel: 'anthropic.claude-3-haiku-20240307-v1:0',
  apiKey: 'AKID:SECRET',
  baseUrl: null,
  providerOptions: { region: 'eu-west-3' },
  ...over,
});

const misconfigured = (field: string) => (error: unknown) =>
  error instanceof GatewayError &&
  (error.detail as { field?: string }).field === field &&
  error.status === 502;

test('the regional endpoint and the encoded model id make the Converse URLs', () => {
  const endpoint = resolveBedrockEndpoint(target());
  assert.deepEqual(endpoint, {
    baseUrl: 'https://bedrock-runtime.eu-west-3.amazonaws.com',
    region: 'eu-west-3',
  });
  assert.equal(
    converseUrl(endpoint, 'arn:aws:bedrock:eu-west-3::foundation-model/m:0', true),
    'https://bedrock-runtime.eu-west-3.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aeu-west-3%3A%3Afoundation-model%2Fm%3A0/converse-stream',
  );
});

test('baseUrl overrides the host, without a trailing slash', () => {
  assert.equal(
    resolveBedrockEndpoint(target({ baseUrl: 'http://127.0.0.1:9/' })).baseUrl,
    'http://127.0.0.1:9',
  );
});

test('a missing or malformed region is a deployment misconfiguration', () => {
  assert.throws(
    () => resolveBedrockEndpoint(target({ providerOptions: {} })),
    misconfigured('providerOptions.region'),
  );
  assert.throws(
    () => resolveBedrockEndpoint(target({ providerOptions: { region: 'us-east-1/evil' } })),
    misconfigured('providerOptions.region'),
  );
});

test('credentials: key and secret, with or without a session token', () => {
  assert.deepEqual(parseBedrockCredentials('AKID:SECRET'), {
    accessKeyId: 'AKID',
    secretAccessKey: 'SECRET',
  });
  assert.deepEqual(parseBedrockCredentials('AKID:SECRET:TOKEN'), {
    accessKeyId: 'AKID',
    secretAccessKey: 'SECRET',
    sessionToken: 'TOKEN',
  });
  for (const bad of [null, '', 'AKID', ':SECRET', 'AKID:', 'AKID::TOKEN', 'AKID:SECRET:']) {
    assert.throws(() => parseBedrockCredentials(bad), misconfigured('apiKey'), String(bad));
  }
});
