import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { EnvelopeError } from './crypto-errors.ts';
import { Keyring } from './keyring.ts';
import { PURPOSES } from './purposes.ts';

const ring = new Keyring(
  new Map([
    ['k1', randomBytes(32)],
    ['k2', randomBytes(32)],
  ]),
  'k2',
);
const purpose = fc.constantFrom(...PURPOSES);

describe('Keyring properties', () => {
  test('any well-formed string round-trips under any purpose', () => {
    fc.assert(
      fc.property(purpose, fc.string({ unit: 'binary', maxLength: 2000 }), (p, text) => {
        assert.equal(ring.openString(p, ring.seal(p, text)), text);
      }),
    );
  });

  test('any bytes round-trip under any purpose', () => {
    fc.assert(
      fc.property(purpose, fc.uint8Array({ maxLength: 4096 }), (p, bytes) => {
        assert.deepEqual(new Uint8Array(ring.open(p, ring.seal(p, bytes))), bytes);
      }),
    );
  });

  test('no envelope opens under a purpose other than its own', () => {
    fc.assert(
      fc.property(purpose, purpose, fc.uint8Array({ maxLength: 64 }), (sealedFor, openedAs, bytes) => {
        fc.pre(sealedFor !== openedAs);
        assert.throws(() => ring.open(openedAs, ring.seal(sealedFor, bytes)), EnvelopeError);
      }),
    );
  });

  test('no single-character edit of an envelope opens', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_:.';
    fc.assert(
      fc.property(
        purpose,
        fc.uint8Array({ maxLength: 64 }),
        fc.nat(),
        fc.constantFrom(...alphabet),
        (p, bytes, position, replacement) => {
          const sealed = ring.seal(p, bytes);
          const index = position % sealed.length;
          fc.pre(sealed[index] !== replacement);
          const edited = sealed.slice(0, index) + replacement + sealed.slice(index + 1);
          assert.throws(() => ring.open(p, edited), EnvelopeError);
        },
      ),
    );
  });
});
