import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { credentialSecrets, isCredentialParameter, scrubSecrets, scrubSecretText } from './scrub-secrets.ts';

describe('scrubSecretText', () => {
  it('removes credentials by their shape', () => {
    const cases = [
      'sk-proj-abcdefghijklmnop1234',
      'sk-ant-api03-abcdefghijklmnop_-12',
      'sk-sy-0123456789abcdefghijABCDEFGHIJ',
      `AIza${'x'.repeat(35)}`,
      'AKIAABCDEFGHIJKLMNOP',
    ];
    for (const secret of cases) {
      const text = scrubSecretText(`key ${secret} refused`);
      assert.equal(text, 'key [redacted] refused', secret);
    }
    assert.equal(
      scrubSecretText('Authorization: Bearer abc.def-ghi_jkl'),
      'Authorization: Bearer [redacted]',
    );
    assert.equal(scrubSecretText('{"api_key": "plainvalue123"}'), '{"api_key": "[redacted]"}');
    assert.equal(scrubSecretText('x-goog-api-key=plainvalue123&a=b'), 'x-goog-api-key=[redacted]&a=b');
  });

  it('removes the secrets it is given wherever they are, and leaves ordinary text alone', () => {
    assert.equal(scrubSecretText('was mykey-0000-plain ok', ['mykey-0000-plain']), 'was [redacted] ok');
    const ordinary = 'max_tokens: 4096, prompt_tokens=12, the task-oriented model, risk-free';
    assert.equal(scrubSecretText(ordinary, ['short']), ordinary);
  });
});

describe('scrubSecrets', () => {
  it('scrubs nested strings and keys, and returns a clean value as it is', () => {
    const clean = { a: ['x', { b: 1 }] };
    assert.equal(scrubSecrets(clean), clean);
    assert.deepEqual(
      scrubSecrets({ error: { message: ['k=secretvalue9'] }, 'sk-abcdefghijkl': 1 }, ['secretvalue9']),
      {
        error: { message: ['k=[redacted]'] },
        '[redacted]': 1,
      },
    );
  });

  it('knows each part of a colon-separated credential', () => {
    const secrets = credentialSecrets('AKIDEXAMPLE1:secretpart123:tok');
    for (const part of ['AKIDEXAMPLE1:secretpart123:tok', 'AKIDEXAMPLE1', 'secretpart123']) {
      assert.ok(secrets.includes(part), part);
    }
    assert.ok(!secrets.includes('tok'), 'too short to search for');
    assert.deepEqual(credentialSecrets(null), []);
  });

  it('scrubs a provider key echoed base64- or hex-encoded or without its prefix', () => {
    // An upstream error body that echoes the key it was sent, as issue 30 found them.
    const key = 'sk-ant-api03-Zq8xLr2mNw5pTy7vBc1dFg4hJk6';
    const known = credentialSecrets(key);
    const echoes = [
      `invalid key ${key.slice('sk-ant-api03-'.length)}`,
      `header was ${Buffer.from(key).toString('hex')}`,
      `sent ${Buffer.from(`user:${key}`).toString('base64')} as auth`,
      `echo ${Buffer.from(`x${key}`).toString('base64url')}`,
      `got ${Buffer.from(`ab${key}`).toString('base64')} instead`,
    ];
    for (const echo of echoes) {
      const scrubbed = scrubSecretText(echo, known);
      assert.ok(scrubbed.includes('[redacted]'), `${echo} -> ${scrubbed}`);
      const secretCore = key.slice(13, 30);
      assert.ok(!scrubbed.includes(secretCore), scrubbed);
      for (const encoded of [Buffer.from(secretCore).toString('hex')]) assert.ok(!scrubbed.includes(encoded));
    }
  });
});

describe('isCredentialParameter', () => {
  it('knows credential names by their decoded form, and not ids', () => {
    for (const name of [
      'api_key',
      'API-KEY',
      'key',
      'token',
      'access_token',
      'x-api-key',
      'sig',
      'password',
    ]) {
      assert.ok(isCredentialParameter(name), name);
    }
    for (const name of ['limit', 'keyId', 'since', 'model', 'cursor'])
      assert.ok(!isCredentialParameter(name), name);
  });
});
