import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { TokenCounter } from './token-counter.ts';

test('a short string counts exactly as gpt-tokenizer (o200k_base) says', () => {
  assert.equal(new TokenCounter().count('hello world'), countTokens('hello world'));
  assert.equal(new TokenCounter().count('hello world'), 2);
});

/** Pieces whose runs of one character class stay far below the 48 a count cuts at. */
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('<|endoftext|>', '<|im_start|>', '<|fim_middle|>', "it's", "WE'LL", '\r\n', '\t', '  '),
  fc.integer().map(String),
);

test('any text without a cut counts exactly as gpt-tokenizer says, special-token markers as text', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
      const text = pieces.join(' ');
      assert.equal(new TokenCounter().count(text), countTokens(text, { disallowedSpecial: new Set() }));
    }),
    { numRuns: 500 },
  );
});

test('the empty string is 0 tokens', () => {
  assert.equal(new TokenCounter().count(''), 0);
});

test('text containing special-token markers is counted, not rejected', () => {
  assert.ok(new TokenCounter().count('before <|endoftext|> after <|im_start|>') > 4);
});

test('regression: a long unbroken run of letters is counted without the quadratic merge (minutes for 1 MB)', () => {
  const exact = countTokens('a'.repeat(1000));
  const counted = new TokenCounter().count('a'.repeat(1000));
  // At most one extra token per cut (every 48 characters of one class).
  assert.ok(counted >= exact && counted <= exact + 21, `${counted} vs ${exact}`);
  assert.ok(new TokenCounter().count('x'.repeat(1_000_000)) > 100_000);
});

test('a cut never splits a surrogate pair', () => {
  const emoji = '😀'.repeat(300);
  const counted = new TokenCounter().count(emoji);
  assert.ok(counted >= countTokens(emoji) && counted <= countTokens(emoji) + 5);
});

test('past the exact budget the rest is extrapolated close to the exact count', () => {
  const prose = 'The quick brown fox jumps over the lazy dog, then naps in the afternoon sun. '.repeat(6000);
  const exact = countTokens(prose);
  const counted = new TokenCounter().count(prose);
  assert.ok(Math.abs(counted - exact) / exact < 0.02, `${counted} vs ${exact}`);
});

test('countJson counts the JSON text and ignores null', () => {
  const tools = [{ type: 'function', function: { name: 'get_weather' } }];
  assert.equal(new TokenCounter().countJson(tools), countTokens(JSON.stringify(tools)));
  assert.equal(new TokenCounter().countJson(null), 0);
  assert.equal(new TokenCounter().countJson(undefined), 0);
});
