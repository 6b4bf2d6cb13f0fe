import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { KeyringConfigError, type KeyringVariable } from './crypto-errors.ts';
import { generateKeyHex, keyringFromCredentialsKey, keyringFromJson } from './keyring-config.ts';

const K1_HEX = '0f'.repeat(32);
const K2_HEX = 'C3'.repeat(32);

function configError(variable: KeyringVariable, message: string, build: () => unknown): void {
  assert.throws(build, (error: unknown) => {
    assert.ok(error instanceof KeyringConfigError);
    assert.equal(error.variable, variable);
    assert.equal(error.message, message);
    assert.equal(error.cause, undefined);
    return true;
  });
}

describe('generateKeyHex', () => {
  test('is 64 lowercase hex characters, fresh each time', () => {
    const hex = generateKeyHex();
    assert.match(hex, /^[0-9a-f]{64}$/);
    assert.notEqual(generateKeyHex(), hex);
  });
});

describe('keyringFromCredentialsKey (Variant A)', () => {
  test('derives the key id from the key', () => {
    const ring = keyringFromCredentialsKey(K1_HEX);
    const digest = createHash('sha256').update(Buffer.from(K1_HEX, 'hex')).digest('hex');
    assert.equal(ring.activeId, `a-${digest.slice(0, 8)}`);
    assert.deepEqual(ring.keyIds, [ring.activeId]);
  });

  test('accepts upper-case hex', () => {
    assert.equal(
      keyringFromCredentialsKey(K2_HEX).openString(
        'deployment-credential',
        keyringFromCredentialsKey(K2_HEX.toLowerCase()).seal('deployment-credential', 'x'),
      ),
      'x',
    );
  });

  test('an envelope from another key is reported by id, not as tampering', () => {
    const old = keyringFromCredentialsKey(K1_HEX);
    const current = keyringFromCredentialsKey(K2_HEX);
    assert.throws(() => current.open('deployment-credential', old.seal('deployment-credential', 'x')), {
      name: 'EnvelopeError',
      reason: 'unknown_key_id',
      message: new RegExp(`"${old.activeId}"`),
    });
  });

  test('refuses an empty value', () => {
    configError(
      'CREDENTIALS_ENCRYPTION_KEY',
      'CREDENTIALS_ENCRYPTION_KEY must be exactly 64 hex characters (it is empty)',
      () => keyringFromCredentialsKey(''),
    );
  });

  test('refuses the wrong length', () => {
    configError(
      'CREDENTIALS_ENCRYPTION_KEY',
      'CREDENTIALS_ENCRYPTION_KEY must be exactly 64 hex characters (it is 32 characters)',
      () => keyringFromCredentialsKey(K1_HEX.slice(0, 32)),
    );
  });

  test('points at whitespace, the usual cause of 65 characters', () => {
    configError(
      'CREDENTIALS_ENCRYPTION_KEY',
      'CREDENTIALS_ENCRYPTION_KEY must be exactly 64 hex characters (it is 65 characters, including whitespace)',
      () => keyringFromCredentialsKey(`${K1_HEX}\n`),
    );
  });

  test('refuses a non-hex character and says where, without quoting the value', () => {
    const value = `${K1_HEX.slice(0, 9)}z${K1_HEX.slice(10)}`;
    configError(
      'CREDENTIALS_ENCRYPTION_KEY',
      'CREDENTIALS_ENCRYPTION_KEY must be exactly 64 hex characters (it has a character that is not hex at position 10)',
      () => keyringFromCredentialsKey(value),
    );
  });
});

describe('keyringFromJson (Variant B)', () => {
  const json = JSON.stringify({ k1: K1_HEX, k2: K2_HEX });
  const rule = 'ENCRYPTION_KEYRING must be a JSON object mapping key ids to 64 hex characters';

  test('builds a keyring with every id and the active one', () => {
    const ring = keyringFromJson(json, 'k1');
    assert.deepEqual(ring.keyIds, ['k1', 'k2']);
    assert.equal(ring.activeId, 'k1');
  });

  test('refuses text that is not JSON, without quoting it', () => {
    configError('ENCRYPTION_KEYRING', `${rule} (it is not valid JSON)`, () =>
      keyringFromJson(`{k1:${K1_HEX}}`, 'k1'),
    );
  });

  test('refuses an empty value', () => {
    configError('ENCRYPTION_KEYRING', `${rule} (it is empty)`, () => keyringFromJson('  ', 'k1'));
  });

  test('refuses an array, null and a string', () => {
    configError('ENCRYPTION_KEYRING', `${rule} (it is an array)`, () =>
      keyringFromJson(`["${K1_HEX}"]`, 'k1'),
    );
    configError('ENCRYPTION_KEYRING', `${rule} (it is null)`, () => keyringFromJson('null', 'k1'));
    configError('ENCRYPTION_KEYRING', `${rule} (it is a string)`, () => keyringFromJson(`"${K1_HEX}"`, 'k1'));
  });

  test('refuses an empty object', () => {
    configError('ENCRYPTION_KEYRING', `${rule} (it has no entries)`, () => keyringFromJson('{}', 'k1'));
  });

  test('refuses a value that is not a string', () => {
    configError('ENCRYPTION_KEYRING', `${rule} (entry "k2" is a number)`, () =>
      keyringFromJson(JSON.stringify({ k1: K1_HEX, k2: 12 }), 'k1'),
    );
  });

  test('refuses a value of the wrong length', () => {
    configError('ENCRYPTION_KEYRING', `${rule} (entry "k2" is 10 characters)`, () =>
      keyringFromJson(JSON.stringify({ k1: K1_HEX, k2: '0123456789' }), 'k1'),
    );
  });

  test('refuses a value that is not hex', () => {
    configError(
      'ENCRYPTION_KEYRING',
      `${rule} (entry "k1" has a character that is not hex at position 64)`,
      () => keyringFromJson(JSON.stringify({ k1: `${K1_HEX.slice(0, 63)}g` }), 'k1'),
    );
  });

  test('refuses an empty key id', () => {
    configError(
      'ENCRYPTION_KEYRING',
      'ENCRYPTION_KEYRING key ids must be 1 to 64 characters of A-Z, a-z, 0-9, "_", "." or "-" (entry #2 has an empty id)',
      () => keyringFromJson(JSON.stringify({ k1: K1_HEX, '': K2_HEX }), 'k1'),
    );
  });

  test('refuses a key id with other characters', () => {
    configError(
      'ENCRYPTION_KEYRING',
      'ENCRYPTION_KEYRING key ids must be 1 to 64 characters of A-Z, a-z, 0-9, "_", "." or "-" (entry "key 1" has a character outside that set)',
      () => keyringFromJson(JSON.stringify({ 'key 1': K1_HEX }), 'key 1'),
    );
  });

  test('refuses a key id longer than 64 characters', () => {
    configError(
      'ENCRYPTION_KEYRING',
      'ENCRYPTION_KEYRING key ids must be 1 to 64 characters of A-Z, a-z, 0-9, "_", "." or "-" (entry #1 has an id of 65 characters)',
      () => keyringFromJson(JSON.stringify({ ['k'.repeat(65)]: K1_HEX }), 'k1'),
    );
  });

  test('refuses an active id that is not in the keyring, naming the ids', () => {
    configError(
      'ACTIVE_ENCRYPTION_KEY_ID',
      'ACTIVE_ENCRYPTION_KEY_ID "k9" is not a key id of ENCRYPTION_KEYRING (ids: k1, k2)',
      () => keyringFromJson(json, 'k9'),
    );
  });

  test('refuses an empty active id', () => {
    configError(
      'ACTIVE_ENCRYPTION_KEY_ID',
      'ACTIVE_ENCRYPTION_KEY_ID is empty; it must be a key id of ENCRYPTION_KEYRING (ids: k1, k2)',
      () => keyringFromJson(json, ''),
    );
  });

  test('a key pasted as the active id is not quoted back', () => {
    configError(
      'ACTIVE_ENCRYPTION_KEY_ID',
      'ACTIVE_ENCRYPTION_KEY_ID (not shown: it looks like key material) is not a key id of ENCRYPTION_KEYRING (ids: k1, k2)',
      () => keyringFromJson(json, K1_HEX),
    );
  });

  test('a key with a trailing newline pasted as the active id is not quoted back', () => {
    configError(
      'ACTIVE_ENCRYPTION_KEY_ID',
      'ACTIVE_ENCRYPTION_KEY_ID (not shown: it looks like key material) is not a key id of ENCRYPTION_KEYRING (ids: k1, k2)',
      () => keyringFromJson(json, `${K1_HEX}\n`),
    );
  });

  test('a key-like id with a stray character is referred to by position', () => {
    configError(
      'ENCRYPTION_KEYRING',
      'ENCRYPTION_KEYRING key ids must be 1 to 64 characters of A-Z, a-z, 0-9, "_", "." or "-" (entry #1 has an id with a character outside that set)',
      () => keyringFromJson(JSON.stringify({ [` ${K1_HEX.slice(0, 40)}`]: K2_HEX }), 'k1'),
    );
  });

  test('a keyring with id and key swapped is not quoted back', () => {
    configError(
      'ENCRYPTION_KEYRING',
      `${rule} (entry #1, whose id looks like key material, is 2 characters)`,
      () => keyringFromJson(JSON.stringify({ [K1_HEX]: 'k1' }), 'k1'),
    );
  });

  test('no message of any rule contains key material', () => {
    const attempts: Array<[string, string]> = [
      [`{"k1": "${K1_HEX}"`, 'k1'],
      [`{"k1": "${K1_HEX}x"}`, 'k1'],
      [`{"${K1_HEX}": "${K2_HEX}0"}`, 'k1'],
      [JSON.stringify({ k1: K1_HEX }), K2_HEX],
    ];
    for (const [value, activeId] of attempts) {
      assert.throws(
        () => keyringFromJson(value, activeId),
        (error: unknown) =>
          error instanceof KeyringConfigError &&
          !/[0-9a-f]{16}/i.test(error.message) &&
          !error.message.includes(K1_HEX.slice(0, 8)),
      );
    }
  });
});
