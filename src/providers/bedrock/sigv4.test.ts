import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  canonicalQuery,
  canonicalUri,
  computeSignature,
  deriveSigningKey,
  formatAmzDate,
  sha256Hex,
  signRequest,
} from './sigv4.ts';

// The AWS SigV4 test suite (aws-sig-v4-test-suite): credentials, scope and date shared by every case.
const SUITE_CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const SUITE_SCOPE = { amzDate: '20150830T123600Z', region: 'us-east-1', service: 'service' };
const SUITE_HEADERS = { Host: 'example.amazonaws.com', 'X-Amz-Date': '20150830T123600Z' };
const EMPTY_HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('SigV4 against the AWS test suite', () => {
  test('get-vanilla: canonical request, string to sign and signature', () => {
    const parts = computeSignature(
      { method: 'GET', path: '/', query: '', headers: SUITE_HEADERS, payloadHash: EMPTY_HASH },
      SUITE_SCOPE,
      SUITE_CREDENTIALS,
    );
    assert.equal(
      parts.canonicalRequest,
      [
        'GET',
        '/',
        '',
        'host:example.amazonaws.com',
        'x-amz-date:20150830T123600Z',
        '',
        'host;x-amz-date',
        EMPTY_HASH,
      ].join('\n'),
    );
    assert.equal(
      parts.stringToSign,
      [
        'AWS4-HMAC-SHA256',
        '20150830T123600Z',
        '20150830/us-east-1/service/aws4_request',
        'bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63',
      ].join('\n'),
    );
    assert.equal(
      parts.authorization,
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  test('get-vanilla-query-order-key-case: query parameters sorted by name', () => {
    const parts = computeSignature(
      {
        method: 'GET',
        path: '/',
        query: 'Param2=value2&Param1=value1',
        headers: SUITE_HEADERS,
        payloadHash: EMPTY_HASH,
      },
      SUITE_SCOPE,
      SUITE_CREDENTIALS,
    );
    assert.equal(parts.signature, 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500');
  });

  test('post-vanilla: an empty body hashes as the empty string', () => {
    const parts = computeSignature(
      { method: 'POST', path: '/', query: '', headers: SUITE_HEADERS, payloadHash: EMPTY_HASH },
      SUITE_SCOPE,
      SUITE_CREDENTIALS,
    );
    assert.equal(parts.signature, '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b');
  });

  test('get-utf8: a non-ASCII path segment is percent-encoded as UTF-8', () => {
    const parts = computeSignature(
      { method: 'GET', path: '/ሴ', query: '', headers: SUITE_HEADERS, payloadHash: EMPTY_HASH },
      SUITE_SCOPE,
      SUITE_CREDENTIALS,
    );
    assert.ok(parts.canonicalRequest.startsWith('GET\n/%E1%88%B4\n'));
    assert.equal(parts.signature, '8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85');
  });
});

test('signing key derivation matches the AWS General Reference example (iam, 20150830)', () => {
  const key = deriveSigningKey(SUITE_CREDENTIALS.secretAccessKey, '20150830', 'us-east-1', 'iam');
  assert.equal(key.toString('hex'), 'c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9');
});

test('the canonical URI encodes an already-encoded Bedrock model id a second time', () => {
  assert.equal(
    canonicalUri('/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse'),
    '/model/anthropic.claude-3-haiku-20240307-v1%253A0/converse',
  );
});

test('canonical query encodes reserved characters and sorts equal names by value', () => {
  assert.equal(canonicalQuery('b=2&a=x%20y&a=1'), 'a=1&a=x%20y&b=2');
  assert.equal(canonicalQuery("k=!'()*"), 'k=%21%27%28%29%2A');
});

test('formatAmzDate is the basic ISO 8601 form in UTC', () => {
  assert.equal(formatAmzDate(new Date('2015-08-30T12:36:00.000Z')), '20150830T123600Z');
});

describe('signRequest', () => {
  const base = {
    method: 'POST',
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m%3A0/converse',
    headers: { 'Content-Type': 'application/json' },
    body: '{"messages":[]}',
    region: 'us-east-1',
    service: 'bedrock',
    now: new Date('2015-08-30T12:36:00.000Z'),
  };

  test('adds host, date, payload hash and an authorization over all of them', () => {
    const headers = signRequest({ ...base, credentials: SUITE_CREDENTIALS });
    assert.equal(headers.host, 'bedrock-runtime.us-east-1.amazonaws.com');
    assert.equal(headers['x-amz-date'], '20150830T123600Z');
    assert.equal(headers['x-amz-content-sha256'], sha256Hex(base.body));
    assert.equal(headers['x-amz-security-token'], undefined);
    assert.match(
      headers.authorization,
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20150830\/us-east-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
  });

  test('temporary credentials send and sign the session token', () => {
    const headers = signRequest({ ...base, credentials: { ...SUITE_CREDENTIALS, sessionToken: 'tok' } });
    assert.equal(headers['x-amz-security-token'], 'tok');
    assert.match(
      headers.authorization,
      /SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,/,
    );
  });

  test('the cached signing key is per secret, day and region: a signature changes with each', () => {
    const signature = (input: Partial<typeof base>, secretAccessKey = SUITE_CREDENTIALS.secretAccessKey) =>
      signRequest({ ...base, ...input, credentials: { ...SUITE_CREDENTIALS, secretAccessKey } })
        .authorization;
    const first = signature({});
    assert.equal(signature({}), first, 'the same inputs sign alike, cached or not');
    assert.notEqual(signature({}, 'another/secret'), first);
    assert.notEqual(signature({ region: 'eu-west-1' }), first);
    assert.notEqual(signature({ now: new Date('2015-08-31T12:36:00.000Z') }), first);
    assert.equal(signature({}), first, 'and the first key is still right afterwards');
  });
});
