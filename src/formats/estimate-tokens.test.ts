import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it, test } from 'node:test';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { estimateInputTokens, inputTokensUpperBound, requestedOutputTokens } from './estimate-tokens.ts';
import type { Operation } from './operation.ts';

const SENTENCE = 'The gateway estimates tokens before calling the upstream. ';

function chat(content: unknown) {
  return { model: 'm', messages: [{ role: 'user', content }] };
}

describe('estimateInputTokens: chat.completions', () => {
  test('one message: 3 reply-priming + 4 per message + the text as gpt-tokenizer counts it', () => {
    assert.equal(
      estimateInputTokens('chat.completions', chat('hello world')),
      3 + 4 + countTokens('hello world'),
    );
  });

  test('text parts are counted like strings', () => {
    const parts = [
      { type: 'text', text: 'hello' },
      { type: 'text', text: ' world' },
    ];
    assert.equal(
      estimateInputTokens('chat.completions', chat(parts)),
      7 + countTokens('hello') + countTokens(' world'),
    );
  });

  test('an image part is 765 tokens, 85 at low detail', () => {
    const high = [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }];
    const low = [{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } }];
    assert.equal(estimateInputTokens('chat.completions', chat(high)), 7 + 765);
    assert.equal(estimateInputTokens('chat.completions', chat(low)), 7 + 85);
  });

  test('tool definitions and assistant tool calls are counted', () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const body = {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ function: { name: 'lookup', arguments: '{"q":1}' } }],
        },
      ],
      tools,
    };
    const expected =
      3 + 4 + countTokens('lookup') + countTokens('{"q":1}') + countTokens(JSON.stringify(tools));
    assert.equal(estimateInputTokens('chat.completions', body), expected);
  });

  test('grows with the input: more text and more messages never count less', () => {
    let previous = 0;
    for (const repeat of [1, 10, 100, 1000, 10_000]) {
      const estimate = estimateInputTokens('chat.completions', chat(SENTENCE.repeat(repeat)));
      assert.ok(estimate > previous, `${repeat}: ${estimate} <= ${previous}`);
      previous = estimate;
    }
    const two = { messages: [...chat('hi').messages, ...chat('hi').messages] };
    assert.ok(
      estimateInputTokens('chat.completions', two) > estimateInputTokens('chat.completions', chat('hi')),
    );
  });

  test('a malformed body estimates 0 instead of throwing', () => {
    assert.equal(estimateInputTokens('chat.completions', null), 0);
    assert.equal(estimateInputTokens('chat.completions', { messages: 'nope' }), 3);
  });
});

describe('estimateInputTokens: messages (Anthropic)', () => {
  test('system, messages and tools', () => {
    const tools = [{ name: 'lookup', input_schema: { type: 'object' } }];
    const body = {
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }],
      tools,
      max_tokens: 100,
    };
    const expected =
      3 + countTokens('Be brief.') + 4 + countTokens('hello world') + countTokens(JSON.stringify(tools));
    assert.equal(estimateInputTokens('messages', body), expected);
  });

  test('an image block is 1600 tokens; tool results nest content', () => {
    const body = {
      messages: [
        { role: 'user', content: [{ type: 'image', source: { type: 'base64', data: 'AAAA' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'done' }] },
      ],
    };
    assert.equal(estimateInputTokens('messages', body), 3 + 4 + 1600 + 4 + countTokens('done'));
  });
});

describe('estimateInputTokens: responses and embeddings', () => {
  test('responses: instructions and a string input', () => {
    const body = { instructions: 'Be brief.', input: 'hello world' };
    assert.equal(
      estimateInputTokens('responses', body),
      3 + countTokens('Be brief.') + 4 + countTokens('hello world'),
    );
  });

  test('responses: input items, function calls and their outputs', () => {
    const body = {
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'hello world' },
            { type: 'input_image', detail: 'low' },
          ],
        },
        { type: 'function_call', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'ok' },
      ],
    };
    const expected =
      3 + 4 + countTokens('hello world') + 85 + countTokens('f') + countTokens('{}') + countTokens('ok');
    assert.equal(estimateInputTokens('responses', body), expected);
  });

  test('embeddings: a string, strings, and token-id arrays', () => {
    assert.equal(estimateInputTokens('embeddings', { input: 'hello world' }), countTokens('hello world'));
    assert.equal(estimateInputTokens('embeddings', { input: ['hello', 'world'] }), 2);
    assert.equal(estimateInputTokens('embeddings', { input: [1, 2, 3] }), 3);
    assert.equal(estimateInputTokens('embeddings', { input: [[1, 2], [3]] }), 3);
  });

  test('image and audio operations count only their prompt', () => {
    assert.equal(
      estimateInputTokens('images.generations', { prompt: 'a red fox' }),
      countTokens('a red fox'),
    );
    assert.equal(estimateInputTokens('audio.transcriptions', {}), 0);
  });
});

describe('requestedOutputTokens', () => {
  test('chat.completions prefers max_completion_tokens over max_tokens', () => {
    assert.equal(requestedOutputTokens('chat.completions', { max_tokens: 50 }), 50);
    assert.equal(
      requestedOutputTokens('chat.completions', { max_tokens: 50, max_completion_tokens: 80 }),
      80,
    );
  });

  test('messages reads max_tokens, responses max_output_tokens', () => {
    assert.equal(requestedOutputTokens('messages', { max_tokens: 1024 }), 1024);
    assert.equal(requestedOutputTokens('responses', { max_output_tokens: 300 }), 300);
  });

  test('null when absent, malformed or not applicable', () => {
    assert.equal(requestedOutputTokens('chat.completions', {}), null);
    assert.equal(requestedOutputTokens('chat.completions', { max_tokens: 'lots' }), null);
    assert.equal(requestedOutputTokens('embeddings', { max_tokens: 5 }), null);
    assert.equal(requestedOutputTokens('responses', null), null);
  });
});

describe('inputTokensUpperBound', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 200 });
  const message = fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: text });

  it('never counts fewer tokens than the estimate (chat, messages, responses, embeddings)', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), text, (messages, input) => {
        const bodies: Array<[Operation, unknown]> = [
          ['chat.completions', { messages }],
          ['messages', { system: input, messages: messages.filter((m) => m.role !== 'system') }],
          ['responses', { instructions: input, input: messages }],
          ['embeddings', { input: [input, ...messages.map((m) => m.content)] }],
        ];
        for (const [operation, body] of bodies) {
          assert.ok(
            inputTokensUpperBound(operation, body) >= estimateInputTokens(operation, body),
            operation,
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it('does not load the tokenizer', () => {
    const script = `
      import { inputTokensUpperBound } from ${JSON.stringify(new URL('./estimate-tokens.ts', import.meta.url).pathname)};
      import { createRequire } from 'node:module';
      inputTokensUpperBound('chat.completions', { messages: [{ role: 'user', content: 'hello world' }] });
      const cache = createRequire(import.meta.url).cache;
      console.log(Object.keys(cache).some((path) => path.includes('gpt-tokenizer')) ? 'loaded' : 'not loaded');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.stdout.trim(), 'not loaded', child.stderr);
  });
});

describe('large inputs (issue 19 item 6)', () => {
  const estimateTokens = new URL('./estimate-tokens.ts', import.meta.url).pathname;

  /** Runs `code` in a fresh process with the module imported; answers what it printed and whether the tokenizer loaded. */
  function inFreshProcess(code: string): { printed: string; tokenizerLoaded: boolean } {
    const script = `
      import * as estimate from ${JSON.stringify(estimateTokens)};
      import { createRequire } from 'node:module';
      const printed = (() => { ${code} })();
      const cache = createRequire(import.meta.url).cache;
      console.log(JSON.stringify({ printed, tokenizerLoaded: Object.keys(cache).some((path) => path.includes('gpt-tokenizer')) }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    return JSON.parse(child.stdout) as { printed: string; tokenizerLoaded: boolean };
  }

  it('estimates a request above LARGE_INPUT_CHARS from its character count, without the tokenizer', () => {
    // CJK text is about one token per character: the exact count is four times the cheap one.
    const result = inFreshProcess(`
      const text = '漢字かな交じり文'.repeat(1_048_576 / 8 + 1); // LARGE_INPUT_CHARS, as docs/configuration.md says
      return { tokens: estimate.estimateInputTokens('chat.completions', { messages: [{ role: 'user', content: text }] }), chars: text.length };
    `);
    const { tokens, chars } = result.printed as unknown as { tokens: number; chars: number };
    assert.equal(tokens, 3 + 4 + Math.ceil(chars * 0.25));
    assert.equal(result.tokenizerLoaded, false);
  });

  it('counts tool definitions of a large request without stringifying them into the tokenizer', () => {
    const result = inFreshProcess(`
      const description = 'x'.repeat(estimate.LARGE_INPUT_CHARS + 10);
      const tools = [{ type: 'function', function: { name: 'f', description } }];
      return estimate.estimateInputTokens('chat.completions', { messages: [], tools }) >= (estimate.LARGE_INPUT_CHARS + 10) / 4;
    `);
    assert.deepEqual(result, { printed: true, tokenizerLoaded: false });
  });

  it('an embeddings batch shares one budget: many inputs that are large together take the cheap path', () => {
    const result = inFreshProcess(`
      const inputs = Array.from({ length: 2000 }, (_, i) => 'word '.repeat(120) + i);
      return estimate.estimateEachEmbeddingInput(inputs).every((tokens, i) => tokens === Math.ceil(inputs[i].length * 0.25));
    `);
    assert.deepEqual(result, { printed: true, tokenizerLoaded: false });
  });

  it('below the threshold the tokenizer still counts exactly', () => {
    const text = '漢字かな交じり文'.repeat(100);
    assert.equal(estimateInputTokens('chat.completions', chat(text)), 3 + 4 + countTokens(text));
  });
});
