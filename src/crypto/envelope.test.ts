import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { EnvelopeError } from './crypto-errors.ts';
import { ENVELOPE_VERSION, openEnvelope, parseEnvelope, sealEnvelope } from './envelope.ts';

const key = randomBytes(32);
const sealed = sealEnvelope(key, 'k1', 'deployment-credential', Buffer.from('sk-live-secret'));

function assertMalformed(envelope: string): void {
  assert.throws(
    () => parseEnvelope(envelope),
    (error: unknown) => error instanceof EnvelopeError && error.reason === 'malformed',
  );
}

describe('envelope format', () => {
  test('is six ":"-separated ASCII fields: version, key id, purpose, iv, ciphertext, tag', () => {
    const fields = sealed.split(':');
    assert.equal(fields.length, 6);
    assert.deepEqual(fields.slice(0, 3), [ENVELOPE_VERSION, 'k1', 'deployment-credential']);
    assert.match(sealed, /^[\x21-\x7e]+$/);
    const parts = parseEnvelope(sealed);
    assert.equal(parts.iv.length, 12);
    assert.equal(parts.ciphertext.length, 'sk-live-secret'.length);
    assert.equal(parts.tag.length, 16);
  });

  test('a key id containing dots and dashes parses back', () => {
    const envelope = sealEnvelope(key, '2025-01.rotation_b', 'payload-sample', Buffer.alloc(0));
    assert.equal(parseEnvelope(envelope).keyId, '2025-01.rotation_b');
  });

  test('every seal draws a fresh iv', () => {
    const again = sealEnvelope(key, 'k1', 'deployment-credential', Buffer.from('sk-live-secret'));
    assert.notEqual(again, sealed);
    assert.notDeepEqual(parseEnvelope(again).iv, parseEnvelope(sealed).iv);
  });

  test('opens with the key it was sealed under', () => {
    assert.equal(openEnvelope(key, parseEnvelope(sealed)).toString(), 'sk-live-secret');
  });

  test('opening with another key is reported as tampered, naming the id', () => {
    assert.throws(
      () => openEnvelope(randomBytes(32), parseEnvelope(sealed)),
      (error: unknown) =>
        error instanceof EnvelopeError && error.reason === 'tampered' && error.message.includes('"k1"'),
    );
  });
});

describe('parseEnvelope rejects as malformed', () => {
  test('the wrong number of fields', () => {
    assertMalformed(`${sealed}:extra`);
    assertMalformed(sealed.split(':').slice(0, 5).join(':'));
  });

  test('another version', () => assertMalformed(sealed.replace(/^sy1:/, 'sy2:')));

  test('an invalid key id', () => {
    assertMalformed(sealed.replace(':k1:', '::'));
    assertMalformed(sealed.replace(':k1:', ':k 1:'));
    assertMalformed(sealed.replace(':k1:', `:${'k'.repeat(65)}:`));
  });

  test('an invalid purpose field', () =>
    assertMalformed(sealed.replace(':deployment-credential:', ':Deploy!:')));

  test('an iv or tag of the wrong length', () => {
    const fields = sealed.split(':');
    assertMalformed(
      [...fields.slice(0, 3), randomBytes(16).toString('base64url'), ...fields.slice(4)].join(':'),
    );
    assertMalformed([...fields.slice(0, 5), randomBytes(12).toString('base64url')].join(':'));
  });

  test('characters outside base64url', () => {
    const fields = sealed.split(':');
    fields[4] = `${fields[4].slice(0, -1)}+`;
    assertMalformed(fields.join(':'));
  });

  test('a non-canonical base64url spelling of the same bytes', () => {
    // 16 bytes take 22 characters; the last one carries 2 spare bits that a lenient decoder ignores.
    const fields = sealed.split(':');
    const last = fields[5].at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1];
    fields[5] = fields[5].slice(0, -1) + sibling;
    assert.deepEqual(Buffer.from(fields[5], 'base64url'), parseEnvelope(sealed).tag);
    assertMalformed(fields.join(':'));
  });

  test('a plaintext credential passed by mistake, without echoing it', () => {
    assert.throws(
      () => parseEnvelope('sk-live-4f9a1c0e7b'),
      (error: unknown) =>
        error instanceof EnvelopeError &&
        error.reason === 'malformed' &&
        !error.message.includes('4f9a1c0e7b'),
    );
  });
});
