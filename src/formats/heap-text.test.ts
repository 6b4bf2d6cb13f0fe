import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { chunksText, heapText } from './heap-text.ts';
import { chunksOf, cutsIn } from './test-support.ts';

/** Bytes that are mostly UTF-8 of every length, with stray continuation and lead bytes among them. */
const utf8ish = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary' }).map((s) => Buffer.from(s)),
      fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)),
      fc.constantFrom(
        ...[[0x80], [0xbf, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc3]].map((b) => Buffer.from(b)),
      ),
    ),
    { maxLength: 40 },
  )
  .map((parts) => Buffer.concat(parts));

describe('heapText', () => {
  it('decodes as toString does, whatever the piece size and the bytes', () => {
    fc.assert(
      fc.property(utf8ish, fc.integer({ min: 4, max: 12 }), (bytes, pieceBytes) => {
        assert.equal(heapText(bytes, pieceBytes), bytes.toString('utf8'));
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps megabyte texts off the external memory, where toString puts them', () => {
    const bytes = Buffer.from('lorem ipsum '.repeat(250_000));
    const externalGrowth = (decode: (bytes: Buffer) => string) => {
      const kept: string[] = [];
      const before = process.memoryUsage().external;
      for (let i = 0; i < 8; i++) kept.push(decode(bytes));
      const growth = process.memoryUsage().external - before;
      assert.equal(kept.at(-1), bytes.toString('utf8'));
      return growth;
    };
    assert.ok(
      externalGrowth((b) => b.toString('utf8')) >= 8 * bytes.length,
      'toString decodes outside the heap',
    );
    assert.ok(externalGrowth(heapText) < bytes.length);
  });
});

describe('chunksText', () => {
  it('decodes the chunks as toString decodes their join, whatever the cuts and the bytes', () => {
    fc.assert(
      fc.property(utf8ish, cutsIn(160), (bytes, cuts) => {
        assert.equal(chunksText(chunksOf(bytes, cuts)), bytes.toString('utf8'));
      }),
      { numRuns: 3000 },
    );
  });

  it('finishes a character with the next chunks, one byte each, and not with a byte that starts another', () => {
    const clef = Buffer.from('a𝄞b');
    assert.equal(chunksText(chunksOf(clef, [1, 2, 3, 4, 5])), 'a𝄞b');
    const broken = Buffer.from([0x61, 0xf0, 0x9d, 0xf0, 0x9d, 0x84, 0x9e]);
    assert.equal(chunksText(chunksOf(broken, [2])), broken.toString('utf8'));
    assert.equal(chunksText(chunksOf(broken, [2, 3, 4])), 'a\ufffd𝄞');
  });
});
