import { randomBytes } from 'node:crypto';
import { KEY_SECRET_PREFIX } from '../auth/key-hash.ts';

/** 256 bits of randomness: as strong as the SHA-256 the database keeps of it. */
const SECRET_BYTES = 32;

/** A new virtual key secret: `sk-sy-` and 32 random bytes in base64url (43 characters). */
export function generateKeySecret(): string {
  return `${KEY_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
}
