import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { anthropicUsageFromChat } from './usage.ts';

describe('anthropicUsageFromChat', () => {
  test('cache reads and writes come out of input_tokens, as Anthropic counts them', () => {
    const usage = anthropicUsageFromChat({
      prompt_tokens: 2158,
      completion_tokens: 12,
      total_tokens: 2170,
      prompt_tokens_details: { cached_tokens: 2048, cache_write_tokens: 60 },
    });
    assert.deepEqual(usage, {
      input_tokens: 50,
      output_tokens: 12,
      cache_creation_input_tokens: 60,
      cache_read_input_tokens: 2048,
    });
  });

  test('no details: every prompt token is input; no usage: zeros', () => {
    const plain = anthropicUsageFromChat({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 });
    assert.deepEqual(plain, {
      input_tokens: 9,
      output_tokens: 3,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    assert.equal(anthropicUsageFromChat(null).input_tokens, 0);
  });
});
