import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { chunksOf, cutsIn } from './test-support.ts';
import { isUtf8Chunks } from './utf8-chunks.ts';

/** Text of one- to four-byte characters, sometimes with a byte changed, cut or dropped. */
const utf8ish = fc
  .tuple(
    fc.string({ unit: fc.constantFrom('a', 'é', '€', '𝄞', '\u0000', '\uffff') }),
    fc.nat(),
    fc.integer({ min: 0, max: 255 }),
    fc.nat({ max: 3 }),
  )
  .map(([text, at, byte, change]) => {
    const bytes = Buffer.from(text);
    if (change === 0 || bytes.length === 0) return bytes;
    const i = at % bytes.length;
    if (change === 1) bytes[i] = byte;
    return change === 2 ? bytes.subarray(0, i) : Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
  });

describe('isUtf8Chunks', () => {
  it('says what isUtf8 says of the joined text, wherever the chunks are cut', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          utf8ish,
          fc.uint8Array({ maxLength: 24 }).map((array) => Buffer.from(array)),
        ),
        cutsIn(64),
        (bytes, cuts) => {
          assert.equal(isUtf8Chunks(chunksOf(bytes, cuts)), isUtf8(bytes));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('takes a four-byte character cut into one byte per chunk, and refuses one left unfinished', () => {
    const clef = Buffer.from('a𝄞b');
    assert.equal(isUtf8Chunks(chunksOf(clef, [1, 2, 3, 4, 5])), true);
    assert.equal(isUtf8Chunks(chunksOf(clef.subarray(0, 4), [1, 2, 3])), false);
    assert.equal(isUtf8Chunks([]), true);
  });
});
