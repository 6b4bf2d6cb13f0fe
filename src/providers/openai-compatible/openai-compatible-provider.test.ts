import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DeploymentTarget } from '../types.ts';
import { openAICompatibleProvider } from './openai-compatible-provider.ts';

const target: DeploymentTarget = {
  id: 'dep_vllm',
  provider: 'openai-compatible',
  upstreamModel: 'meta-llama/Llama-3.1-8B-Instruct',
  apiKey: null,
  baseUrl: 'http://vllm.internal:8000/v1',
  providerOptions: {},
};

describe('openai-compatible provider', () => {
  test('serves chat and embeddings natively and needs a base URL', () => {
    assert.deepEqual(Object.keys(openAICompatibleProvider.operations).sort(), [
      'chat.completions',
      'embeddings',
    ]);
    assert.equal(openAICompatibleProvider.requiresBaseUrl, true);
  });

  test('the base URL is origin and prefix; no Authorization without a key', () => {
    const request = openAICompatibleProvider.operations['chat.completions']!.buildRequest({
      target,
      body: { model: 'llama', messages: [{ role: 'user', content: 'hi' }] },
      stream: false,
    });
    assert.equal(request.url, 'http://vllm.internal:8000/v1/chat/completions');
    assert.equal(request.headers.authorization, undefined);
    assert.equal(JSON.parse(request.body as string).model, 'meta-llama/Llama-3.1-8B-Instruct');
  });

  test('Bearer auth when the deployment has a key', () => {
    const request = openAICompatibleProvider.operations.embeddings!.buildRequest({
      target: { ...target, apiKey: 'gsk_123', baseUrl: 'https://api.groq.com/openai/v1' },
      body: { model: 'x', input: 'y' },
      stream: false,
    });
    assert.equal(request.url, 'https://api.groq.com/openai/v1/embeddings');
    assert.equal(request.headers.authorization, 'Bearer gsk_123');
  });
});
