/**
 * AWS Signature Version 4 for requests signed in headers (AWS General Reference, "Create a signed AWS
 * API request": canonical request, string to sign, signing key, signature). Pinned by the AWS SigV4
 * test suite vectors in sigv4.test.ts.
 */
import { createHash, createHmac } from 'node:crypto';

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface CanonicalRequestInput {
  method: string;
  /** The path exactly as it goes on the wire (each segment already percent-encoded once). */
  path: string;
  /** The raw query string, without `?`; empty for none. */
  query: string;
  /** The headers to sign (name case does not matter). */
  headers: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the body. */
  payloadHash: string;
}

export interface SigningScope {
  /** `YYYYMMDDTHHMMSSZ`. */
  amzDate: string;
  region: string;
  service: string;
}

export interface SignatureParts {
  canonicalRequest: string;
  stringToSign: string;
  signedHeaders: string;
  signature: string;
  authorization: string;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Uint8Array, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** `YYYYMMDDTHHMMSSZ` of a date, in UTC. */
export function formatAmzDate(date: Date): string {
  const iso = date.toISOString(); // 2015-08-30T12:36:00.000Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** SigV4's URI encoding: RFC 3986 unreserved characters stay, every other UTF-8 byte becomes `%XX`. */
export function uriEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const unreserved =
      (byte >= 0x41 && byte <= 0x5a) || // A-Z
      (byte >= 0x61 && byte <= 0x7a) || // a-z
      (byte >= 0x30 && byte <= 0x39) || // 0-9
      byte === 0x2d || // -
      byte === 0x2e || // .
      byte === 0x5f || // _
      byte === 0x7e; // ~
    out += unreserved ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The canonical URI: every segment of the wire path URI-encoded again. Services other than S3 take
 * the path "URI-encoded twice" counted from the raw value, so a Bedrock model id `a:0` travels as
 * `a%3A0` and is signed as `a%253A0`.
 */
export function canonicalUri(wirePath: string): string {
  if (wirePath === '' || wirePath === '/') return '/';
  return wirePath.split('/').map(uriEncode).join('/');
}

/** The canonical query: names and values decoded, re-encoded, sorted by name then value. */
export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === '') return '';
  const pairs = rawQuery
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      const value = eq === -1 ? '' : part.slice(eq + 1);
      return [uriEncode(decodeURIComponent(name)), uriEncode(decodeURIComponent(value))] as const;
    });
  pairs.sort(([an, av], [bn, bv]) => (an === bn ? compare(av, bv) : compare(an, bn)));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Header values are trimmed and inner runs of spaces collapse to one. */
function canonicalHeaderValue(value: string): string {
  return value
    .trim()
    .split(' ')
    .filter((piece) => piece !== '')
    .join(' ');
}

export function canonicalHeaders(headers: Readonly<Record<string, string>>): {
  canonical: string;
  signedHeaders: string;
} {
  const entries = Object.entries(headers)
    .map(([name, value]) => [name.toLowerCase(), canonicalHeaderValue(value)] as const)
    .sort(([a], [b]) => compare(a, b));
  return {
    canonical: entries.map(([name, value]) => `${name}:${value}\n`).join(''),
    signedHeaders: entries.map(([name]) => name).join(';'),
  };
}

export function deriveSigningKey(
  secretAccessKey: string,
  date: string,
  region: string,
  service: string,
): Buffer {
  const kDate = hmac(`AWS4${secretAccessKey}`, date);
  const kRegion = hmac(kDate, region);
  const kService = hmac(kRegion, service);
  return hmac(kService, 'aws4_request');
}

/**
 * Signing keys already derived: a key depends only on the secret, the day, the region and the
 * service, and its four HMACs were most of a signature's cost (docs/decisions/bedrock-signing.md).
 * In memory only; emptied when full, which a day's turnover of keys never reaches in practice.
 */
const SIGNING_KEYS = new Map<string, Buffer>();
const MAX_SIGNING_KEYS = 256;

function cachedSigningKey(secretAccessKey: string, date: string, region: string, service: string): Buffer {
  const id = `${date}\n${region}\n${service}\n${secretAccessKey}`;
  let key = SIGNING_KEYS.get(id);
  if (key === undefined) {
    if (SIGNING_KEYS.size >= MAX_SIGNING_KEYS) SIGNING_KEYS.clear();
    key = deriveSigningKey(secretAccessKey, date, region, service);
    SIGNING_KEYS.set(id, key);
  }
  return key;
}

/** Computes every intermediate of a signature; `authorization` is the header value to send. */
export function computeSignature(
  request: CanonicalRequestInput,
  scope: SigningScope,
  credentials: Pick<AwsCredentials, 'accessKeyId' | 'secretAccessKey'>,
): SignatureParts {
  const { canonical, signedHeaders } = canonicalHeaders(request.headers);
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalUri(request.path),
    canonicalQuery(request.query),
    canonical,
    signedHeaders,
    request.payloadHash,
  ].join('\n');
  const date = scope.amzDate.slice(0, 8);
  const credentialScope = `${date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [SIGV4_ALGORITHM, scope.amzDate, credentialScope, sha256Hex(canonicalRequest)].join(
    '\n',
  );
  const key = cachedSigningKey(credentials.secretAccessKey, date, scope.region, scope.service);
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  const authorization = `${SIGV4_ALGORITHM} Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, signedHeaders, signature, authorization };
}

export interface SignRequestInput {
  method: string;
  url: string;
  /** Headers to send and sign besides the ones signing adds. */
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array;
  credentials: AwsCredentials;
  region: string;
  service: string;
  now: Date;
}

/**
 * Signs a request in its headers: adds `host`, `x-amz-date`, `x-amz-content-sha256`,
 * `x-amz-security-token` (temporary credentials) and `authorization`, and returns every header to send.
 */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const url = new URL(input.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
  headers.host = url.host;
  headers['x-amz-date'] = formatAmzDate(input.now);
  headers['x-amz-content-sha256'] = sha256Hex(input.body);
  if (input.credentials.sessionToken) headers['x-amz-security-token'] = input.credentials.sessionToken;
  const parts = computeSignature(
    {
      method: input.method,
      path: url.pathname,
      query: url.search.startsWith('?') ? url.search.slice(1) : url.search,
      headers,
      payloadHash: headers['x-amz-content-sha256'],
    },
    { amzDate: headers['x-amz-date'], region: input.region, service: input.service },
    input.credentials,
  );
  headers.authorization = parts.authorization;
  return headers;
}
