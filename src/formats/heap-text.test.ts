import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { heapText } from './heap-text.ts';

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
