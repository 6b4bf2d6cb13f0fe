import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type ChunkTextOptions, readChunkText } from './chunk-text.ts';

const options: ChunkTextOptions = {
  writtenModel: JSON.stringify('gpt-4o-mini'),
  writtenPublicModel: JSON.stringify('public-gpt'),
  includeUsage: true,
};

/** A chunk as OpenAI writes it (compact JSON), with `fields` added to the top level. */
function chunk(delta: object, fields: object = {}): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...fields,
  });
}

const renamed = (text: string): unknown => ({ ...JSON.parse(text), model: 'public-gpt' });

describe('readChunkText', () => {
  test('a content delta: its text with the public model, and its content', () => {
    const text = chunk({ content: ' world' });
    const read = readChunkText(text, options);
    assert.equal(read?.generated, ' world');
    assert.deepEqual(JSON.parse(read?.text ?? ''), renamed(text));
  });

  test('a delta without text (the finish chunk) carries no content', () => {
    const read = readChunkText(chunk({}), options);
    assert.equal(read?.generated, '');
  });

  test('property: any content, escapes and unicode included, reads as JSON.parse reads it', () => {
    let readCount = 0;
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (content) => {
        const text = chunk({ content });
        const read = readChunkText(text, options);
        // A content that holds a marker (`"error"`...) or `"content"` is left to the parser.
        if (read === null) return;
        readCount += 1;
        assert.equal(read.generated, content);
        assert.deepEqual(JSON.parse(read.text), renamed(text));
      }),
    );
    assert.ok(readCount > 50, `only ${readCount} of 100 contents read from the text`);
  });

  test('the "usage":null an upstream asked for usage adds is kept for a client that asked, cut otherwise', () => {
    const text = chunk({ content: 'a' }, { usage: null });
    assert.deepEqual(JSON.parse(readChunkText(text, options)?.text ?? ''), renamed(text));
    const cut = readChunkText(text, { ...options, includeUsage: false });
    const { usage: _usage, ...withoutUsage } = renamed(text) as { usage: unknown };
    assert.deepEqual(JSON.parse(cut?.text ?? ''), withoutUsage);
  });

  test('leaves to the parser every chunk that carries more than content or is not of the common shape', () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    const parsed = {
      'an error object': JSON.stringify({ error: { message: 'boom', type: 'server_error' } }),
      "vLLM's flat error": JSON.stringify({ object: 'error', message: 'boom', model: 'gpt-4o-mini' }),
      'the usage chunk': JSON.stringify({ id: 'c', model: 'gpt-4o-mini', choices: [], usage }),
      'usage not last': chunk({ content: 'a' }, { usage: null, service_tier: 'default' }),
      'tool calls': chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }),
      'a refusal': chunk({ refusal: 'no' }),
      'reasoning content': chunk({ reasoning_content: 'hm' }),
      reasoning: chunk({ reasoning: 'hm' }),
      'the role chunk': chunk({ role: 'assistant', content: '' }),
      'content null': chunk({ content: null }),
      'two choices': JSON.stringify({
        model: 'gpt-4o-mini',
        choices: [
          { index: 0, delta: { content: 'a' } },
          { index: 1, delta: { content: 'b' } },
        ],
      }),
      'another model': chunk({ content: 'a' }, { model: 'gpt-4o' }),
      'no model': JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: 'a' } }] }),
      'spaced JSON': JSON.stringify(JSON.parse(chunk({ content: 'a' })), null, 1).replaceAll('\n', ''),
      'not an object': '["gpt-4o-mini"]',
      'not JSON': '{not json',
      'an unterminated content': '{"model":"gpt-4o-mini","choices":[{"delta":{"content":"a\\"}}]}',
    };
    for (const [name, text] of Object.entries(parsed)) assert.equal(readChunkText(text, options), null, name);
  });

  test('a chunk of the common shape that is not JSON is passed on as sent (no parse, as a proxy would)', () => {
    const text = '{"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"a"}},]}';
    assert.deepEqual(readChunkText(text, options), {
      text: '{"model":"public-gpt","choices":[{"index":0,"delta":{"content":"a"}},]}',
      generated: 'a',
    });
  });
});
