/**
 * Checks an AWS Signature Version 4 the way AWS services do, for the fakes that stand in for them
 * (Bedrock Runtime, STS): recomputed with the gateway's own canonical-request code, which the AWS
 * test-suite vectors pin (src/providers/bedrock/sigv4.test.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type AwsCredentials, computeSignature, sha256Hex } from '../../src/providers/bedrock/sigv4.ts';
import type { RecordedRequest } from './fake-server.ts';

export interface SigV4Expectation {
  credentials: AwsCredentials;
  region: string;
  service: string;
}

export interface SigV4Failure {
  type: string;
  message: string;
}

/**
 * SigV4 as AWS checks it: known key, scope, body hash, session token, then the recomputed signature.
 * Null when it holds; else the AWS error type and message an AWS service answers with.
 */
export function verifySigV4(req: RecordedRequest, want: SigV4Expectation): SigV4Failure | null {
  const authorization = req.headers.authorization;
  if (!authorization)
    return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const parsed = parseAuthorization(authorization);
  const invalid = {
    type: 'InvalidSignatureException',
    message: 'The request signature we calculated does not match the signature you provided.',
  };
  if (!parsed) return invalid;
  if (parsed.accessKeyId !== want.credentials.accessKeyId) {
    return {
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  }
  const amzDate = header(req.headers, 'x-amz-date');
  const [date, region, service, terminator] = parsed.scope;
  if (
    !amzDate ||
    date !== amzDate.slice(0, 8) ||
    region !== want.region ||
    service !== want.service ||
    terminator !== 'aws4_request'
  ) {
    return invalid;
  }
  if (!parsed.signedHeaders.includes('host') || !parsed.signedHeaders.includes('x-amz-date')) return invalid;
  const payloadHash = sha256Hex(req.rawBody);
  const declared = header(req.headers, 'x-amz-content-sha256');
  if (declared !== undefined && declared !== payloadHash) return invalid;
  if (
    want.credentials.sessionToken &&
    header(req.headers, 'x-amz-security-token') !== want.credentials.sessionToken
  ) {
    return {
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  }
  const signed: Record<string, string> = {};
  for (const name of parsed.signedHeaders) {
    const value = header(req.headers, name);
    if (value === undefined) return invalid;
    signed[name] = value;
  }
  const target = req.url;
  const question = target.indexOf('?');
  const expected = computeSignature(
    {
      method: req.method,
      path: question === -1 ? target : target.slice(0, question),
      query: question === -1 ? '' : target.slice(question + 1),
      headers: signed,
      payloadHash,
    },
    { amzDate, region: want.region, service: want.service },
    want.credentials,
  ).signature;
  const given = Buffer.from(parsed.signature);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted) ? null : invalid;
}

function parseAuthorization(
  value: string,
): { accessKeyId: string; scope: string[]; signedHeaders: string[]; signature: string } | null {
  const prefix = 'AWS4-HMAC-SHA256 ';
  if (!value.startsWith(prefix)) return null;
  const fields = new Map<string, string>();
  for (const part of value.slice(prefix.length).split(',')) {
    const eq = part.indexOf('=');
    if (eq !== -1) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get('Credential')?.split('/');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (credential?.length !== 5 || !signedHeaders || !signature) return null;
  return {
    accessKeyId: credential[0],
    scope: credential.slice(1),
    signedHeaders: signedHeaders.split(';'),
    signature,
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
