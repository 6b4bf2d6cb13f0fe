import { createHash, randomBytes } from 'node:crypto';
import { KeyringConfigError } from './crypto-errors.ts';
import { KEY_BYTES, KEY_ID_PATTERN } from './envelope.ts';
import { Keyring } from './keyring.ts';

/*
 * Builds a Keyring from the environment (SPEC.md, Authentication: credential encryption;
 * DESIGN.md section 2). Each failure is one KeyringConfigError line naming the variable and the
 * rule. No message quotes a key, nor anything that might be one: the JSON.parse error (which
 * quotes its input) is dropped, and an id that looks like hex key material is referred to by its
 * position instead of by name.
 */

const KEY_HEX_LENGTH = KEY_BYTES * 2;
/** A run of this many hex digits is more likely a key pasted into the wrong place than a name. */
const KEY_LIKE = /[0-9a-fA-F]{32}/;
const KEYRING_RULE = `ENCRYPTION_KEYRING must be a JSON object mapping key ids to ${KEY_HEX_LENGTH} hex characters`;
const KEY_ID_RULE = 'ENCRYPTION_KEYRING key ids must be 1 to 64 characters of A-Z, a-z, 0-9, "_", "." or "-"';

/**
 * Variant A: one key from `CREDENTIALS_ENCRYPTION_KEY`. Its id is derived from the key ("a-" and
 * the first 8 hex digits of its SHA-256), so an envelope written under another key is reported
 * as an unknown id rather than as tampering.
 */
export function keyringFromCredentialsKey(hex: string): Keyring {
  const problem = describeKeyHex(hex);
  if (problem !== null) {
    throw new KeyringConfigError(
      'CREDENTIALS_ENCRYPTION_KEY',
      `CREDENTIALS_ENCRYPTION_KEY must be exactly ${KEY_HEX_LENGTH} hex characters (it ${problem})`,
    );
  }
  const key = Buffer.from(hex, 'hex');
  const id = `a-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
  return new Keyring(new Map([[id, key]]), id);
}

/** Variant B: `ENCRYPTION_KEYRING` (JSON id -> 64 hex characters) and `ACTIVE_ENCRYPTION_KEY_ID`. */
export function keyringFromJson(json: string, activeId: string): Keyring {
  const keys = parseKeyringJson(json);
  if (!keys.has(activeId)) {
    const ids = [...keys.keys()].map((id, index) => (KEY_LIKE.test(id) ? `#${index + 1}` : id)).join(', ');
    throw new KeyringConfigError(
      'ACTIVE_ENCRYPTION_KEY_ID',
      `ACTIVE_ENCRYPTION_KEY_ID ${describeMissingActiveId(activeId)} a key id of ENCRYPTION_KEYRING (ids: ${ids})`,
    );
  }
  return new Keyring(keys, activeId);
}

/** A fresh random key as 64 hex characters, for the embedded dev mode. */
export function generateKeyHex(): string {
  return randomBytes(KEY_BYTES).toString('hex');
}

function parseKeyringJson(json: string): Map<string, Buffer> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw keyringError(json.trim() === '' ? 'it is empty' : 'it is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw keyringError(`it is ${describeJsonType(value)}`);
  }
  const entries = Object.entries(value);
  if (entries.length === 0) throw keyringError('it has no entries');
  const keys = new Map<string, Buffer>();
  entries.forEach(([id, hex], index) => {
    const name = entryName(id, index);
    if (!KEY_ID_PATTERN.test(id))
      throw new KeyringConfigError('ENCRYPTION_KEYRING', `${KEY_ID_RULE} (${describeBadId(id, index)})`);
    if (typeof hex !== 'string') throw keyringError(`${name} is ${describeJsonType(hex)}`);
    const problem = describeKeyHex(hex);
    if (problem !== null) throw keyringError(`${name} ${problem}`);
    keys.set(id, Buffer.from(hex, 'hex'));
  });
  return keys;
}

function keyringError(detail: string): KeyringConfigError {
  return new KeyringConfigError('ENCRYPTION_KEYRING', `${KEYRING_RULE} (${detail})`);
}

/** What is wrong with a would-be key, without quoting any of it; null when it is fine. */
function describeKeyHex(hex: string): string | null {
  if (hex.length === 0) return 'is empty';
  if (hex.length !== KEY_HEX_LENGTH) {
    // A trailing newline from a secrets file is the usual reason for 65.
    return /\s/.test(hex)
      ? `is ${hex.length} characters, including whitespace`
      : `is ${hex.length} characters`;
  }
  const bad = hex.search(/[^0-9a-fA-F]/);
  return bad === -1 ? null : `has a character that is not hex at position ${bad + 1}`;
}

function describeMissingActiveId(activeId: string): string {
  if (activeId === '') return 'is empty; it must be';
  if (KEY_LIKE.test(activeId) || activeId.length > 64)
    return '(not shown: it looks like key material) is not';
  return `${JSON.stringify(activeId)} is not`;
}

function entryName(id: string, index: number): string {
  return KEY_LIKE.test(id)
    ? `entry #${index + 1}, whose id looks like key material,`
    : `entry ${JSON.stringify(id)}`;
}

function describeBadId(id: string, index: number): string {
  if (id === '') return `entry #${index + 1} has an empty id`;
  if (id.length > 64) return `entry #${index + 1} has an id of ${id.length} characters`;
  if (KEY_LIKE.test(id)) return `entry #${index + 1} has an id with a character outside that set`;
  return `entry ${JSON.stringify(id)} has a character outside that set`;
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}
