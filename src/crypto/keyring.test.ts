import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import { EnvelopeError, type EnvelopeErrorReason } from './crypto-errors.ts';
import { parseEnvelope } from './envelope.ts';
import { Keyring } from './keyring.ts';
import type { Purpose } from './purposes.ts';

const K1_HEX = '11'.repeat(32);
const K2_HEX = 'a2'.repeat(32);

function keyring(hexById: Record<string, string>, activeId: string): Keyring {
  const keys = new Map(Object.entries(hexById).map(([id, hex]) => [id, Buffer.from(hex, 'hex')]));
  return new Keyring(keys, activeId);
}

function rejects(reason: EnvelopeErrorReason, open: () => unknown): EnvelopeError {
  let caught: unknown;
  assert.throws(open, (error: unknown) => {
    caught = error;
    return error instanceof EnvelopeError && error.reason === reason;
  });
  return caught as EnvelopeError;
}

/** Rewrites one field of an envelope, decoding and re-encoding the binary ones canonically. */
function editField(envelope: string, index: number, edit: (field: string) => string): string {
  const fields = envelope.split(':');
  fields[index] = edit(fields[index]);
  return fields.join(':');
}

function flipFirstByte(field: string): string {
  const bytes = Buffer.from(field, 'base64url');
  bytes[0] ^= 0x01;
  return bytes.toString('base64url');
}

const ring = keyring({ k1: K1_HEX }, 'k1');
const purpose: Purpose = 'deployment-credential';

describe('Keyring round trip', () => {
  test('a string', () => {
    assert.equal(ring.openString(purpose, ring.seal(purpose, 'sk-live-é漢字🙂')), 'sk-live-é漢字🙂');
  });

  test('binary bytes', () => {
    const bytes = new Uint8Array([0, 255, 1, 128, 0, 7]);
    assert.deepEqual(
      new Uint8Array(ring.open('extension-artifact', ring.seal('extension-artifact', bytes))),
      bytes,
    );
  });

  test('an empty plaintext', () => {
    assert.equal(ring.openString('payload-sample', ring.seal('payload-sample', '')), '');
  });

  test('a string with a lone surrogate is refused rather than silently altered', () => {
    assert.throws(() => ring.seal(purpose, 'a\uD800b'), TypeError);
  });
});

describe('Keyring purpose binding', () => {
  test('an envelope sealed for one purpose does not open as another', () => {
    const capsule = ring.seal('responses-capsule', 'conversation');
    const error = rejects('purpose_mismatch', () => ring.open('deployment-credential', capsule));
    assert.match(error.message, /"responses-capsule", not "deployment-credential"/);
  });

  test('an unknown purpose at run time is a TypeError', () => {
    assert.throws(() => ring.seal('nope' as Purpose, 'x'), TypeError);
  });
});

describe('Keyring tamper detection', () => {
  const sealed = ring.seal(purpose, 'sk-live-secret');

  test('an edited iv fails authentication', () => {
    rejects('tampered', () => ring.open(purpose, editField(sealed, 3, flipFirstByte)));
  });

  test('an edited ciphertext fails authentication', () => {
    rejects('tampered', () => ring.open(purpose, editField(sealed, 4, flipFirstByte)));
  });

  test('an edited tag fails authentication', () => {
    rejects('tampered', () => ring.open(purpose, editField(sealed, 5, flipFirstByte)));
  });

  test('an edited key id fails authentication even when both ids hold the same key', () => {
    const twins = keyring({ k1: K1_HEX, k2: K1_HEX }, 'k1');
    const moved = editField(twins.seal(purpose, 'sk-live-secret'), 1, () => 'k2');
    rejects('tampered', () => twins.open(purpose, moved));
  });

  test('an edited purpose fails authentication when opened as the new purpose', () => {
    const relabelled = editField(sealed, 2, () => 'payload-sample');
    rejects('tampered', () => ring.open('payload-sample', relabelled));
  });

  test('any single-character edit anywhere fails', () => {
    for (let index = 0; index < sealed.length; index += 1) {
      const replacement = sealed[index] === 'A' ? 'B' : 'A';
      const edited = sealed.slice(0, index) + replacement + sealed.slice(index + 1);
      assert.throws(() => ring.open(purpose, edited), EnvelopeError, `edit at ${index} was accepted`);
    }
  });
});

describe('Keyring key ids', () => {
  test('an unknown key id is reported by name with the ids on hand', () => {
    const other = keyring({ k2: K2_HEX }, 'k2');
    const error = rejects('unknown_key_id', () => other.open(purpose, ring.seal(purpose, 'x')));
    assert.equal(error.message, 'envelope key id "k1" is not in the keyring (ids: k2)');
    assert.equal(error.keyId, 'k1');
  });

  test('keyIdOf and isActive read the id without opening', () => {
    const both = keyring({ k1: K1_HEX, k2: K2_HEX }, 'k2');
    const old = ring.seal(purpose, 'x');
    assert.equal(both.keyIdOf(old), 'k1');
    assert.equal(both.isActive(old), false);
    assert.equal(both.isActive(both.seal(purpose, 'x')), true);
  });

  test('keyIdOf of something that is not an envelope is malformed', () => {
    rejects('malformed', () => ring.keyIdOf('sk-plaintext'));
  });

  test('seal always uses the active id', () => {
    const both = keyring({ k1: K1_HEX, k2: K2_HEX }, 'k2');
    assert.equal(both.activeId, 'k2');
    assert.equal(parseEnvelope(both.seal(purpose, 'x')).keyId, 'k2');
  });
});

describe('Keyring rotation', () => {
  test('seal under k1, read under {k1,k2}, reseal to k2, then read with k2 alone', () => {
    const before = keyring({ k1: K1_HEX }, 'k1');
    const during = keyring({ k1: K1_HEX, k2: K2_HEX }, 'k2');
    const after = keyring({ k2: K2_HEX }, 'k2');

    const old = before.seal(purpose, 'sk-live-secret');
    assert.equal(during.openString(purpose, old), 'sk-live-secret');

    const resealed = during.reseal(purpose, old);
    assert.equal(during.keyIdOf(resealed), 'k2');
    assert.equal(during.isActive(resealed), true);

    assert.equal(after.openString(purpose, resealed), 'sk-live-secret');
    const error = rejects('unknown_key_id', () => after.open(purpose, old));
    assert.match(error.message, /"k1"/);
  });

  test('reseal keeps the purpose check', () => {
    const during = keyring({ k1: K1_HEX, k2: K2_HEX }, 'k2');
    rejects('purpose_mismatch', () => during.reseal('payload-sample', ring.seal(purpose, 'x')));
  });
});

describe('Keyring secrecy', () => {
  const both = keyring({ k1: K1_HEX, k2: K2_HEX }, 'k2');

  test('JSON shows ids only', () => {
    const json = JSON.stringify(both);
    assert.deepEqual(JSON.parse(json), { activeId: 'k2', keyIds: ['k1', 'k2'] });
    assert.ok(!json.includes(K1_HEX) && !json.includes(K2_HEX));
  });

  test('util.inspect shows ids only, at any depth', () => {
    const shown = inspect({ nested: { both } }, { depth: 10, showHidden: true });
    assert.match(shown, /Keyring \{ activeId: 'k2', keyIds: \[ 'k1', 'k2'/);
    for (const hex of [K1_HEX, K2_HEX]) {
      assert.ok(!shown.includes(hex) && !shown.includes(hex.slice(0, 8)));
    }
    assert.ok(!shown.includes('<Buffer'));
  });

  test('no own enumerable property exposes a key', () => {
    assert.deepEqual(Object.keys(both), []);
  });

  test('later changes to the caller buffer do not reach the keyring', () => {
    const key = Buffer.from(K1_HEX, 'hex');
    const own = new Keyring(new Map([['k1', key]]), 'k1');
    const sealed = own.seal(purpose, 'x');
    key.fill(0);
    assert.equal(own.openString(purpose, sealed), 'x');
  });
});

describe('Keyring constructor', () => {
  test('refuses a key that is not 32 bytes', () => {
    assert.throws(() => new Keyring(new Map([['k1', new Uint8Array(16)]]), 'k1'), RangeError);
  });

  test('refuses an active id that is not in the keyring', () => {
    assert.throws(() => keyring({ k1: K1_HEX }, 'k2'), RangeError);
  });

  test('refuses an invalid key id', () => {
    assert.throws(() => keyring({ 'k 1': K1_HEX }, 'k 1'), RangeError);
  });
});
