import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { DeploymentTarget } from '../types.ts';
import { AZURE_DEFAULT_API_VERSION } from './azure-config.ts';
import { azureProvider } from './azure-provider.ts';

const target: DeploymentTarget = {
  id: 'dep_az',
  provider: 'azure',
  upstreamModel: 'my-gpt4o',
  apiKey: 'azure-key',
  baseUrl: 'https://myres.openai.azure.com/',
  providerOptions: {},
};
const body = { model: 'public', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('azure provider', () => {
  test('serves chat, embeddings, image generations and transcriptions natively, and needs a base URL', () => {
    assert.deepEqual(Object.keys(azureProvider.operations).sort(), [
      'audio.transcriptions',
      'chat.completions',
      'embeddings',
      'images.generations',
    ]);
    assert.equal(azureProvider.requiresBaseUrl, true);
  });

  test('deployment path, api-version query and api-key header', () => {
    const request = azureProvider.operations['chat.completions']!.buildRequest({
      target,
      body,
      stream: false,
    });
    assert.equal(
      request.url,
      `https://myres.openai.azure.com/openai/deployments/my-gpt4o/chat/completions?api-version=${AZURE_DEFAULT_API_VERSION}`,
    );
    assert.equal(request.headers['api-key'], 'azure-key');
    assert.equal(request.headers.authorization, undefined);
  });

  test('providerOptions.apiVersion overrides the default; deployment names are encoded', () => {
    const request = azureProvider.operations.embeddings!.buildRequest({
      target: {
        ...target,
        upstreamModel: 'emb small',
        providerOptions: { apiVersion: '2025-04-01-preview' },
      },
      body: { model: 'public', input: 'x' },
      stream: false,
    });
    assert.equal(
      request.url,
      'https://myres.openai.azure.com/openai/deployments/emb%20small/embeddings?api-version=2025-04-01-preview',
    );
  });

  test('streamed chat asks for usage as on OpenAI (composed, not copied)', () => {
    const request = azureProvider.operations['chat.completions']!.buildRequest({
      target,
      body: { ...body, stream: true },
      stream: true,
    });
    assert.deepEqual(JSON.parse(request.body as string).stream_options, { include_usage: true });
  });

  test('a deployment without a base URL is a configuration defect', () => {
    assert.throws(
      () =>
        azureProvider.operations['chat.completions']!.buildRequest({
          target: { ...target, baseUrl: null },
          body,
          stream: false,
        }),
      (e: unknown) => e instanceof GatewayError && e.code === 'internal_error',
    );
  });

  test('the content filter refusal is a content_policy error', () => {
    const info = azureProvider.classifyError(
      400,
      {
        error: { code: 'content_filter', message: 'The response was filtered', param: 'prompt', status: 400 },
      },
      {},
    );
    assert.equal(info.code, 'content_policy_violation');
  });
});
