import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeModelName } from './normalize-model-name.ts';

test('normalizeModelName strips paths, Bedrock prefixes and the fine-tune marker', () => {
  assert.equal(normalizeModelName('GPT-4o'), 'gpt-4o');
  assert.equal(normalizeModelName('openai/gpt-4o'), 'gpt-4o');
  assert.equal(
    normalizeModelName('accounts/fireworks/models/llama-v3p1-8b-instruct'),
    'llama-v3p1-8b-instruct',
  );
  assert.equal(
    normalizeModelName('anthropic.claude-3-5-sonnet-20240620-v1:0'),
    'claude-3-5-sonnet-20240620-v1:0',
  );
  assert.equal(
    normalizeModelName('us.anthropic.claude-3-5-sonnet-20240620-v1:0'),
    'claude-3-5-sonnet-20240620-v1:0',
  );
  assert.equal(normalizeModelName('meta.llama3-1-70b-instruct-v1:0'), 'llama3-1-70b-instruct-v1:0');
  assert.equal(normalizeModelName('ft:gpt-4o-mini-2024-07-18:acme::abc'), 'gpt-4o-mini-2024-07-18:acme::abc');
});

test('normalizeModelName leaves dotted version numbers alone', () => {
  assert.equal(normalizeModelName('gpt-4.1'), 'gpt-4.1');
  assert.equal(normalizeModelName('gemini-2.5-pro'), 'gemini-2.5-pro');
});

test("normalizeModelName strips Vertex AI's @version", () => {
  assert.equal(normalizeModelName('claude-sonnet-4-5@20250929'), 'claude-sonnet-4-5');
  assert.equal(normalizeModelName('claude-3-5-haiku@20241022'), 'claude-3-5-haiku');
});
