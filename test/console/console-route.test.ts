import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_CSP } from '../../src/server/console-route.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const PAGE = '<!doctype html><script type="module" src="/console/assets/app-Ab12.js"></script>';
const SCRIPT = 'console.log("console");';

/** Serving `/console` from a build folder: headers, caching, and nothing of it on `/v1` or `/admin`. */
describe('GET /console', () => {
  let dir: string;
  let gw: TestGateway;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sy-console-files-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), PAGE);
    await writeFile(join(dir, 'assets', 'app-Ab12.js'), SCRIPT);
    gw = await startTestGateway({ consoleDir: dir, redis: false });
  });
  after(async () => {
    await gw.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('redirects /console to /console/', async () => {
    const res = await fetch(`${gw.url}/console`, { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '/console/');
  });

  it('answers the page with a strict CSP, revalidated on every load', async () => {
    const res = await fetch(`${gw.url}/console/`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), PAGE);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(res.headers.get('content-security-policy'), CONSOLE_CSP);
    assert.match(CONSOLE_CSP, /script-src 'self';/);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const again = await fetch(`${gw.url}/console/`, {
      headers: { 'if-none-match': res.headers.get('etag') ?? '' },
    });
    assert.equal(again.status, 304);
  });

  it('answers a hashed asset cached for a year, and 404 for an unknown one', async () => {
    const res = await fetch(`${gw.url}/console/assets/app-Ab12.js`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), SCRIPT);
    assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const missing = await fetch(`${gw.url}/console/assets/other.js`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'not_found');
    const outside = await fetch(`${gw.url}/console/assets/..%2Findex.html`);
    assert.equal(outside.status, 404);
    await outside.arrayBuffer();
  });

  it('leaves /v1 and /admin to their own authentication', async () => {
    const v1 = await fetch(`${gw.url}/v1/models`);
    assert.equal(v1.status, 401);
    assert.equal(v1.headers.get('content-security-policy'), null);
    await v1.arrayBuffer();
    const adminSurface = await fetch(`${gw.url}/admin/deployments`);
    assert.equal(adminSurface.status, 401);
    await adminSurface.arrayBuffer();
  });
});

describe('GET /console before a build', () => {
  it('answers 404 not_found saying how to build it', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'sy-console-empty-'));
    const gw = await startTestGateway({ consoleDir: empty, redis: false });
    try {
      const res = await fetch(`${gw.url}/console/`);
      assert.equal(res.status, 404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'not_found');
      assert.match(body.error.message, /npm run build/);
    } finally {
      await gw.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
