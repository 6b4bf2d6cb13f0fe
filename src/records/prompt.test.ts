import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { OPERATION_SPECS } from '../formats/operation-spec.ts';
import { cleanText, promptOf, truncate } from './prompt.ts';

describe('promptOf', () => {
  it('joins chat messages with their roles, text parts only', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: 'data:...' } },
          ],
        },
      ],
    };
    assert.equal(promptOf('chat.completions', body, 1000), 'system: be brief\nuser: what is this');
  });

  it('reads Anthropic system, Responses input and instructions, and prompt', () => {
    assert.equal(
      promptOf('messages', { model: 'm', system: 'sys', messages: [{ role: 'user', content: 'hi' }] }, 100),
      'system: sys\nuser: hi',
    );
    assert.equal(
      promptOf('responses', { model: 'm', instructions: 'be kind', input: 'hello' }, 100),
      'instructions: be kind\nhello',
    );
    assert.equal(promptOf('images.generations', { model: 'm', prompt: 'a red fox' }, 100), 'a red fox');
    assert.equal(promptOf('embeddings', { model: 'm', input: ['one', 'two'] }, 100), 'one\ntwo');
  });

  it("reads only the operation's own prompt fields, not any field of the same name", () => {
    // A chat body's stray `prompt` or `input` is not its prompt: the duck-typed reader took them.
    assert.equal(promptOf('chat.completions', { model: 'm', prompt: 'not mine' }, 100), null);
    assert.equal(
      promptOf(
        'chat.completions',
        { model: 'm', input: 'x', messages: [{ role: 'user', content: 'hi' }] },
        100,
      ),
      'user: hi',
    );
  });

  it('truncates to the limit and removes NUL, which Postgres text refuses', () => {
    assert.equal(promptOf('images.generations', { model: 'm', prompt: 'abc\u0000defghij' }, 5), 'abcde');
    assert.equal(promptOf('images.generations', { model: 'm', prompt: 'anything' }, 0), null);
    assert.equal(promptOf('chat.completions', { model: 'm' }, 100), null);
  });

  it('never cuts a surrogate pair in half', () => {
    assert.equal(truncate('ab😀cd', 3), 'ab');
    assert.equal(truncate('ab😀cd', 4), 'ab😀');
  });

  it('keeps what cutting the whole prompt would keep, though it collects only the start', () => {
    // Strings with NULs and surrogates (the cuts' edge cases), in text parts and whole contents.
    const text = fc.string({
      unit: fc.constantFrom('a', 'é', '\u0000', '\ud83d\ude00', '\ud83d', '\n'),
      maxLength: 40,
    });
    const content = fc.oneof(text, fc.array(fc.oneof(text, fc.record({ type: fc.constant('text'), text }))));
    const message = fc.record({ role: fc.constantFrom('user', 'system'), content });
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 8 }),
        text,
        fc.integer({ min: 1, max: 30 }),
        (messages, system, max) => {
          for (const [operation, body] of [
            ['chat.completions', { model: 'm', messages }],
            ['messages', { model: 'm', system, messages }],
            ['responses', { model: 'm', instructions: system, input: messages }],
          ] as const) {
            const whole = OPERATION_SPECS[operation].promptText(body, Number.POSITIVE_INFINITY);
            const expected = whole === null ? null : truncate(cleanText(truncate(whole, 2 * max)), max);
            assert.equal(promptOf(operation, body, max), expected);
          }
        },
      ),
    );
  });
});
