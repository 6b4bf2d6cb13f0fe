import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnMain, waitForListening } from '../helpers/child.ts';

/** The README quick start: `npm start` with nothing configured serves on the embedded default. */
describe('embedded start (no DATABASE_URL, no REDIS_URL, no MASTER_KEY)', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sy-start-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true, maxRetries: 5 }));

  async function start() {
    const child = spawnMain(['serve'], { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir });
    const port = await waitForListening(child);
    return { child, port };
  }

  it('generates a master key once, prints it once, and is ready', async () => {
    const first = await start();
    const secrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as {
      masterKey: string;
    };
    assert.ok(first.child.output().includes(secrets.masterKey), 'printed on the start that generated it');
    const ready = await fetch(`http://127.0.0.1:${first.port}/health/ready`);
    assert.equal(ready.status, 200);
    const authed = await fetch(`http://127.0.0.1:${first.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secrets.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'none', messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(authed.status, 404, 'the generated key authenticates');
    first.child.kill('SIGTERM');
    const [code] = await once(first.child, 'exit');
    assert.equal(code, 0);

    const second = await start();
    assert.ok(!second.child.output().includes(secrets.masterKey), 'not printed again');
    assert.equal((await fetch(`http://127.0.0.1:${second.port}/health/ready`)).status, 200);
    second.child.kill('SIGTERM');
    await once(second.child, 'exit');
  });
});
