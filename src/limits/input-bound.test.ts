import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IMAGE_TOKEN_BOUND, inputTokenBound, providerFamily } from './input-bound.ts';

const claude = { provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5', contextWindow: 200_000 };

test('a PDF, file or audio part that counted 0 input tokens reserves the whole context window', () => {
  const pdf = {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' } },
          { type: 'text', text: 'summarise' },
        ],
      },
    ],
  };
  assert.equal(inputTokenBound({ operation: 'messages', body: pdf, estimate: 12, ...claude }), 200_000);
  const chatFile = { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] };
  const gpt = { provider: 'openai', upstreamModel: 'gpt-4o', contextWindow: 128_000 };
  assert.equal(
    inputTokenBound({ operation: 'chat.completions', body: chatFile, estimate: 10, ...gpt }),
    128_000,
  );
  const audio = {
    input: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA' } }] }],
  };
  assert.equal(inputTokenBound({ operation: 'responses', body: audio, estimate: 10, ...gpt }), 128_000);
  const text = {
    messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', data: 'hi' } }] }],
  };
  assert.ok(
    inputTokenBound({ operation: 'messages', body: text, estimate: 12, ...claude }) < 100,
    'text is counted',
  );
});

test("scales the estimate by the family's margin and adds its tool framing and image bounds", () => {
  const body = {
    tools: [{ name: 'a' }, { name: 'b' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          {
            type: 'tool_result',
            tool_use_id: 't',
            content: [{ type: 'image', source: { type: 'url', url: 'u' } }],
          },
        ],
      },
    ],
  };
  assert.equal(
    inputTokenBound({ operation: 'messages', body, estimate: 1_000, ...claude }),
    1_600 + 600 + 2 * IMAGE_TOKEN_BOUND,
  );
  const capped = inputTokenBound({ operation: 'messages', body: {}, estimate: 190_000, ...claude });
  assert.equal(capped, 200_000, 'never above the window the provider would refuse past');
});

test('names the family that bills a deployment', () => {
  assert.equal(providerFamily('bedrock', 'anthropic.claude-3-5-sonnet-20241022-v2:0'), 'anthropic');
  assert.equal(providerFamily('vertex', 'gemini-2.5-pro'), 'gemini');
  assert.equal(providerFamily('azure', 'my-deployment'), 'openai');
  assert.equal(providerFamily('openai-compatible', 'openai/gpt-4o'), 'openai');
  assert.equal(providerFamily('openai-compatible', 'meta-llama/Llama-3.3-70B-Instruct'), 'open-weights');
});
