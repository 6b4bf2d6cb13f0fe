/** What a client's `Cache-Control` asks of the response cache (DESIGN.md section 5). */
export interface CacheDirectives {
  /** `no-cache`: do not answer from the cache (the fresh answer may still be stored). */
  noCache: boolean;
  /** `no-store`: do not store this call's answer. */
  noStore: boolean;
}

const NONE: CacheDirectives = Object.freeze({ noCache: false, noStore: false });

/**
 * The directives of a `Cache-Control` request header (RFC 9111 section 5.2: a comma-separated
 * list, names case-insensitive, some with `=value`); unknown directives are ignored.
 */
export function parseCacheControl(header: string | undefined): CacheDirectives {
  if (header === undefined || header === '') return NONE;
  let noCache = false;
  let noStore = false;
  for (const part of header.split(',')) {
    const name = part.split('=', 1)[0].trim().toLowerCase();
    if (name === 'no-cache') noCache = true;
    else if (name === 'no-store') noStore = true;
  }
  return { noCache, noStore };
}
