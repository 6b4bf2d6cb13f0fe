import { randomUUID } from 'node:crypto';

const MAX_REQUEST_ID_LENGTH = 200;

/** Visible ASCII only: an inbound id is echoed in a header and written to logs. */
function isAcceptableRequestId(value: string): boolean {
  if (value.length === 0 || value.length > MAX_REQUEST_ID_LENGTH) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

/** SPEC.md cross-cutting rule 1: an inbound `x-request-id` is accepted and echoed, else one is made. */
export function requestIdFor(inbound: string | string[] | undefined): string {
  if (typeof inbound === 'string' && isAcceptableRequestId(inbound)) return inbound;
  return randomUUID();
}
