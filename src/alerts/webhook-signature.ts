import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-switchyard-signature';

/** `sha256=<hex HMAC-SHA256 of the raw body>`: the receiver recomputes it over the bytes it read. */
export function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
