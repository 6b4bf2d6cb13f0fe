import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isJsonNumber } from './json-number.ts';

/** RFC 8259's number grammar as a regular expression: what the byte reading must agree with. */
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

const bytesOf = (text: string) => Buffer.from(text, 'latin1');

test('numbers and non-numbers', () => {
  for (const text of ['0', '-0', '12', '1.5', '-0.25e-3', '6E+2', '1700000000']) {
    assert.equal(isJsonNumber(bytesOf(text), 0, text.length), true, text);
  }
  for (const text of ['', '-', '01', '1.', '.5', '1e', '1e+', '+1', '1.2.3', '0x10', ' 1', 'NaN']) {
    assert.equal(isJsonNumber(bytesOf(text), 0, text.length), false, text);
  }
});

test('reads only its span of a longer text', () => {
  const text = bytesOf('{"created":1700000000,"n":-1.5e3}');
  assert.equal(isJsonNumber(text, 11, 21), true);
  assert.equal(isJsonNumber(text, 11, 22), false);
  assert.equal(isJsonNumber(text, 26, 32), true);
});

test('agrees with the grammar for any text of number characters', () => {
  const numberish = fc.string({ unit: fc.constantFrom(...'0123456789-+.eE x'), maxLength: 12 });
  fc.assert(
    fc.property(
      numberish,
      fc.string({ maxLength: 3 }),
      fc.string({ maxLength: 3 }),
      (text, before, after) => {
        const whole = bytesOf(before + text + after);
        const from = Buffer.byteLength(before, 'latin1');
        assert.equal(isJsonNumber(whole, from, from + text.length), NUMBER.test(text));
      },
    ),
    { numRuns: 2000 },
  );
});
