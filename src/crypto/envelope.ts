import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { EnvelopeError } from './crypto-errors.ts';
import type { Purpose } from './purposes.ts';

/*
 * Envelope format, version 1 (compact ASCII, six fields separated by ":"):
 *
 *   sy1:<keyId>:<purpose>:<iv>:<ciphertext>:<tag>
 *
 * iv (12 bytes), ciphertext (as long as the plaintext, possibly empty) and tag (16 bytes) are
 * unpadded base64url (RFC 4648 section 5). The header "sy1:<keyId>:<purpose>" is the GCM
 * additional authenticated data, so editing the version, key id or purpose fails authentication
 * just like editing the ciphertext does; the IV is authenticated by GCM itself. ":" occurs in none
 * of the fields (key ids are [A-Za-z0-9_.-], purposes [a-z0-9-], base64url [A-Za-z0-9_-]), which
 * keeps the header unambiguous.
 */

export const ENVELOPE_VERSION = 'sy1';
/** AES-256-GCM with a 96-bit random IV (NIST SP 800-38D section 8.2.2); safe for 2^32 seals per key. */
export const KEY_BYTES = 32;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;
/** Key ids (SPEC.md, Authentication: "stable key ids"); also what Variant A's derived id satisfies. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

const ALGORITHM = 'aes-256-gcm';
const FIELD_COUNT = 6;
const PURPOSE_FIELD_PATTERN = /^[a-z0-9-]{1,64}$/;

export interface EnvelopeParts {
  readonly keyId: string;
  /** As written in the envelope; the caller compares it with the purpose it expects. */
  readonly purpose: string;
  readonly iv: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

/** Seals `plaintext` under `key`, naming `keyId` and `purpose` in the authenticated header. */
export function sealEnvelope(key: Buffer, keyId: string, purpose: Purpose, plaintext: Uint8Array): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  const header = envelopeHeader(keyId, purpose);
  cipher.setAAD(Buffer.from(header, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [header, encode(iv), encode(ciphertext), encode(tag)].join(':');
}

/** Authenticates and decrypts parsed envelope parts with `key`; throws `tampered` on any mismatch. */
export function openEnvelope(key: Buffer, parts: EnvelopeParts): Buffer {
  const decipher = createDecipheriv(ALGORITHM, key, parts.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(envelopeHeader(parts.keyId, parts.purpose), 'ascii'));
  decipher.setAuthTag(parts.tag);
  try {
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]);
  } catch {
    // The key under this id may also have been replaced (Variant B) rather than the envelope edited.
    throw new EnvelopeError(
      'tampered',
      `envelope failed authentication (it was altered, or sealed with a different key under id "${parts.keyId}")`,
      { keyId: parts.keyId, purpose: parts.purpose },
    );
  }
}

/**
 * Splits an envelope into its fields, checking their shape but not their authenticity. Messages
 * never echo the input: a legacy plaintext credential passed here by mistake must not reach a log.
 */
export function parseEnvelope(envelope: string): EnvelopeParts {
  if (typeof envelope !== 'string') throw malformed('it is not a string');
  const fields = envelope.split(':');
  if (fields.length !== FIELD_COUNT || fields[0] !== ENVELOPE_VERSION) {
    throw malformed(`expected ${FIELD_COUNT} ":"-separated fields starting with "${ENVELOPE_VERSION}"`);
  }
  const [, keyId, purpose, ivField, ciphertextField, tagField] = fields;
  if (!KEY_ID_PATTERN.test(keyId)) throw malformed('the key id field is not a valid key id');
  if (!PURPOSE_FIELD_PATTERN.test(purpose)) throw malformed('the purpose field is not a valid purpose');
  const iv = decode(ivField, 'iv');
  const ciphertext = decode(ciphertextField, 'ciphertext');
  const tag = decode(tagField, 'tag');
  if (iv.length !== IV_BYTES) throw malformed(`the iv is not ${IV_BYTES} bytes`);
  if (tag.length !== TAG_BYTES) throw malformed(`the tag is not ${TAG_BYTES} bytes`);
  return { keyId, purpose, iv, ciphertext, tag };
}

function envelopeHeader(keyId: string, purpose: string): string {
  return `${ENVELOPE_VERSION}:${keyId}:${purpose}`;
}

function encode(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/**
 * Node's base64url decoder skips characters it does not know and ignores spare trailing bits, so
 * two spellings could decode alike; accepting only the canonical spelling makes every edit of the
 * envelope string detectable.
 */
function decode(field: string, name: string): Buffer {
  const bytes = Buffer.from(field, 'base64url');
  if (bytes.toString('base64url') !== field) throw malformed(`the ${name} is not canonical base64url`);
  return bytes;
}

function malformed(rule: string): EnvelopeError {
  return new EnvelopeError('malformed', `envelope is malformed: ${rule}`);
}
