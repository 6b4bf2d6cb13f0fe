import { createHash } from 'node:crypto';
import type { EndpointBody } from '../pipeline/endpoint.ts';

/**
 * Top-level body fields that do not change the answer (DESIGN.md section 5, Response cache):
 * whether and how it is streamed (`stream_options` only shapes the stream: a hit is replayed in
 * the form the request asks for), and who asked (`user`, `metadata`).
 */
const IGNORED_FIELDS: ReadonlySet<string> = new Set(['stream', 'stream_options', 'user', 'metadata']);

/** Bumped when the stored form of an entry changes, so old entries are never read as new ones. */
const ENTRY_VERSION = 'v1';

/**
 * The exact-match key of a call: a hash of the operation, the public model, the canonical JSON
 * of the body (object keys sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` share an
 * entry) and the client headers the provider is sent (`anthropic-beta` switches features on, so
 * it changes the answer). The body never reaches the cache store, only its digest.
 */
export function responseCacheKey(
  operation: string,
  publicModel: string,
  body: EndpointBody,
  forwardedHeaders: Readonly<Record<string, string>> = {},
): string {
  const hash = createHash('sha256');
  hash.update(operation);
  hash.update('\n');
  hash.update(publicModel);
  hash.update('\n');
  hash.update(canonicalJson(body, IGNORED_FIELDS));
  hash.update('\n');
  hash.update(canonicalJson(forwardedHeaders));
  return `rc:${ENTRY_VERSION}:${hash.digest('base64url')}`;
}

/**
 * JSON with object keys in code-unit order at every depth; what JSON.stringify leaves out
 * (undefined, functions, symbol keys) is left out here too. `skip` applies to the top level only.
 */
export function canonicalJson(value: unknown, skip: ReadonlySet<string> = new Set()): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    return `[${value.map((item) => (isOmitted(item) ? 'null' : canonicalJson(item))).join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of Object.keys(record).sort()) {
    if (skip.has(key) || isOmitted(record[key])) continue;
    fields.push(`${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  }
  return `{${fields.join(',')}}`;
}

function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
