import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { hashKeySecret } from './key-hash.ts';

it('hashes a secret to the SHA-256 bytes every stored key_hash holds', () => {
  for (const secret of ['sk-sy-abc', 'sk-bench-master-0123456789', 'ключ-🔑', '']) {
    const digest = hashKeySecret(secret);
    assert.ok(Buffer.isBuffer(digest));
    assert.deepEqual(digest, createHash('sha256').update(secret, 'utf8').digest());
  }
});
