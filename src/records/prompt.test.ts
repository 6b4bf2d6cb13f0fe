import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { promptOf, truncate } from './prompt.ts';

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
    assert.equal(promptOf(body, 1000), 'system: be brief\nuser: what is this');
  });

  it('reads Anthropic system, Responses input and instructions, and prompt', () => {
    assert.equal(
      promptOf({ model: 'm', system: 'sys', messages: [{ role: 'user', content: 'hi' }] }, 100),
      'system: sys\nuser: hi',
    );
    assert.equal(
      promptOf({ model: 'm', instructions: 'be kind', input: 'hello' }, 100),
      'instructions: be kind\nhello',
    );
    assert.equal(promptOf({ model: 'm', prompt: 'a red fox' }, 100), 'a red fox');
    assert.equal(promptOf({ model: 'm', input: ['one', 'two'] }, 100), 'one\ntwo');
  });

  it('truncates to the limit and removes NUL, which Postgres text refuses', () => {
    assert.equal(promptOf({ model: 'm', prompt: 'abc\u0000defghij' }, 5), 'abcde');
    assert.equal(promptOf({ model: 'm', prompt: 'anything' }, 0), null);
    assert.equal(promptOf({ model: 'm' }, 100), null);
  });

  it('never cuts a surrogate pair in half', () => {
    assert.equal(truncate('ab😀cd', 3), 'ab');
    assert.equal(truncate('ab😀cd', 4), 'ab😀');
  });
});
