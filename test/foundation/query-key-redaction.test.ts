import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { eventually } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

/**
 * Issue 19 item 3: `?api%5Fkey=<MASTER_KEY>` and `?%61pi_key=` are `api_key` to the query parser,
 * so they authenticate, and the access line logged them in plaintext. The URL is redacted by the
 * decoded parameter name. The master key here is shaped like no known credential, so only the
 * name can find it.
 */

/** `name` with each character either as it is or percent-encoded, in upper or lower case hex. */
function encodedName(name: string): fc.Arbitrary<string> {
  const choices = [...name].map((char) => {
    const hex = char.charCodeAt(0).toString(16).padStart(2, '0');
    return fc.constantFrom(char, `%${hex.toUpperCase()}`, `%${hex.toLowerCase()}`);
  });
  return fc.tuple(...choices).map((chars) => chars.join(''));
}

describe('credentials in the query string are never logged', () => {
  const masterKey = `mk${randomBytes(24).toString('hex')}`;
  let gw: TestGateway;

  before(async () => {
    gw = await startTestGateway({ redis: false, env: { MASTER_KEY: masterKey } });
  });
  after(() => gw.close());

  /** The access line of `path` is written once the answer is sent: wait for it, then scan. */
  async function assertNotLogged(path: string): Promise<void> {
    await eventually(() => {
      assert.ok(gw.logs.some((entry) => entry.includes('request completed') && entry.includes(path)));
    });
    const lines = gw.logs.filter((entry) => entry.includes(path)).join('\n');
    assert.ok(!lines.includes(masterKey.slice(2, 26)), `the master key was logged: ${lines}`);
  }

  it('api_key, however its name is encoded, authenticates and is redacted', async () => {
    await fc.assert(
      fc.asyncProperty(encodedName('api_key'), fc.constantFrom('', '&limit=5'), async (name, rest) => {
        const path = `/v1/models/${randomBytes(4).toString('hex')}`;
        const res = await fetch(`${gw.url}${path}?${name}=${masterKey}${rest}`);
        await res.arrayBuffer();
        assert.notEqual(res.status, 401, `?${name}= is the api_key credential`);
        await assertNotLogged(path);
      }),
      { numRuns: 40 },
    );
    assert.ok(gw.logs.some((line) => line.includes('api_key=%5Bredacted%5D')));
  });

  it('other credential-carrying parameters are redacted too', async () => {
    const names = ['key', 'api-key', 'apikey', 'x-api-key', 'token', 'access_token', 'API_KEY', 'secret'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names).chain(encodedName), async (name) => {
        const path = `/v1/models/${randomBytes(4).toString('hex')}`;
        const res = await fetch(`${gw.url}${path}?${name}=${masterKey}`);
        await res.arrayBuffer();
        await assertNotLogged(path);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps parameters that are not credentials readable', async () => {
    const res = await fetch(`${gw.url}/v1/models?limit=5&keyId=key_1`, {
      headers: { authorization: `Bearer ${masterKey}` },
    });
    await res.arrayBuffer();
    await eventually(() => {
      assert.ok(gw.logs.some((line) => line.includes('"url":"/v1/models?limit=5&keyId=key_1"')));
    });
  });

  it('scrubs the master key in a parameter of any name, as written or URL-encoded (issue 30)', async () => {
    for (const name of ['x', 'q', 'next', 'model']) {
      for (const value of [masterKey, encodeURIComponent(masterKey).replace(/^mk/, '%6Dk')]) {
        const path = `/v1/models/${randomBytes(4).toString('hex')}`;
        const res = await fetch(`${gw.url}${path}?${name}=${value}`, {
          headers: { authorization: `Bearer ${masterKey}` },
        });
        await res.arrayBuffer();
        await assertNotLogged(path);
      }
    }
  });

  it('scrubs the master key from the path and from a request id the client chose (the access line is written whole)', async () => {
    const marker = randomBytes(4).toString('hex');
    const inPath = `/v1/models/${marker}-${masterKey}`;
    const res = await fetch(`${gw.url}${inPath}`, { headers: { authorization: `Bearer ${masterKey}` } });
    await res.arrayBuffer();
    await assertNotLogged(`/v1/models/${marker}-`);
    const requestId = `rid-${marker}-${masterKey}`;
    const viaHeader = await fetch(`${gw.url}/v1/models`, {
      headers: { authorization: `Bearer ${masterKey}`, 'x-request-id': requestId },
    });
    await viaHeader.arrayBuffer();
    assert.equal(viaHeader.headers.get('x-request-id'), requestId, 'the client sees its own id');
    await eventually(() => {
      assert.ok(
        gw.logs.some((entry) => entry.includes('request completed') && entry.includes(`rid-${marker}-`)),
      );
    });
    const lines = gw.logs.filter((entry) => entry.includes(`rid-${marker}-`)).join('\n');
    assert.ok(!lines.includes(masterKey.slice(2, 26)), `the master key was logged: ${lines}`);
  });
});
