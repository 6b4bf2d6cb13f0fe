import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { runMain, spawnMain } from '../helpers/child.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/database.ts';
import { freePortBelowEphemeral } from '../helpers/free-port.ts';
import { testSecrets } from '../helpers/secrets.ts';

describe('WORKERS', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('refuses more than one worker without shared Postgres and Redis', () => {
    assert.throws(
      () => loadConfig({ WORKERS: '2' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          'WORKERS above 1 needs DATABASE_URL and REDIS_URL or REDIS_CLUSTER_NODES (the embedded database and cache store belong to one process; got WORKERS=2)',
    );
  });

  it('runs two replicas on one port, both answering, and stops them on SIGTERM', async () => {
    const port = await freePortBelowEphemeral();
    const env = {
      ...testSecrets(),
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: `sy-workers-${port}:`,
      WORKERS: '2',
      PORT: String(port),
      HOST: '127.0.0.1',
    };
    assert.equal((await runMain(['migrate'], env)).code, 0);
    const primary = spawnMain(['serve'], env);
    after(() => {
      if (primary.exitCode === null) primary.kill('SIGKILL');
    });
    const pids = new Set<number>();
    const deadline = Date.now() + 60_000;
    while (pids.size < 2 && Date.now() < deadline) {
      for (const line of primary.output().split('\n')) {
        if (line.includes('switchyard listening')) pids.add((JSON.parse(line) as { pid: number }).pid);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(pids.size, 2, `two workers listening:\n${primary.output()}`);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    assert.equal(ready.status, 200);
    primary.kill('SIGTERM');
    const [code] = await once(primary, 'exit');
    assert.equal(code, 0);
    assert.equal(primary.output().match(/shutdown complete/g)?.length, 2, 'each worker drained and closed');
  });
});
