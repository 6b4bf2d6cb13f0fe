import { hash } from 'node:crypto';

/** Only the SHA-256 of a virtual key's secret is stored (DESIGN.md section 5). */
export function hashKeySecret(secret: string): Buffer {
  // The one-shot form with a hex digest turned into bytes: its `buffer` output is the slow path
  // (docs/decisions/hot-path.md, One-shot key hash).
  return Buffer.from(hash('sha256', secret), 'hex');
}

/** Virtual key secrets carry this prefix, so a resolver can refuse other strings without a lookup. */
export const KEY_SECRET_PREFIX = 'sk-sy-';
