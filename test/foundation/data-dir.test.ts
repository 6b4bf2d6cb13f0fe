import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnMain } from '../helpers/child.ts';
import {
  isAlive,
  type LogLine,
  startOutcome,
  urlOf,
  waitForLog,
  waitForWorker,
} from '../helpers/child-logs.ts';
import { waitUntil } from '../helpers/eventually.ts';
import { admin } from '../records/support.ts';

type Child = ReturnType<typeof spawnMain>;

/**
 * The embedded default keeps its database in DATA_DIR, where PGlite has no lock of its own: one
 * gateway per directory, a second refuses to start, and neither a worker's restart nor a hard
 * kill of the whole gateway leaves the directory locked.
 */
describe('one gateway per DATA_DIR (embedded default)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let first: Child;
  let worker: LogLine;
  const children: Child[] = [];
  const start = () => {
    const child = spawnMain(['serve'], env);
    children.push(child);
    return child;
  };
  const gw = async (listening: LogLine) => {
    const secrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as {
      masterKey: string;
    };
    return { url: urlOf(listening), masterKey: secrets.masterKey };
  };
  const deploymentNames = async (listening: LogLine) => {
    const list = await admin<{ data: { publicModel: string }[] }>(
      await gw(listening),
      'GET',
      '/admin/deployments',
    );
    assert.equal(list.status, 200, list.text);
    return list.body.data.map((deployment) => deployment.publicModel);
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sy-data-dir-'));
    env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir };
  });
  after(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('refuses a second gateway on the directory with one line naming it', async () => {
    first = start();
    worker = await waitForWorker(first);
    const created = await admin(await gw(worker), 'POST', '/admin/deployments', {
      publicModel: 'kept',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'sk-upstream-kept',
    });
    assert.equal(created.status, 201, created.text);

    const second = start();
    const outcome = await startOutcome(second);
    assert.equal(outcome, 1, `the second gateway must not start:\n${second.output()}`);
    assert.equal(
      second.output(),
      `switchyard: DATA_DIR ${dataDir} is in use by another running gateway: stop it, or give this one its own DATA_DIR\n`,
    );
    assert.equal((await fetch(`${urlOf(worker)}/health/ready`)).status, 200, 'the first serves on');
  });

  it('restarts a worker killed with SIGKILL on the same embedded database', async () => {
    process.kill(worker.pid, 'SIGKILL');
    await waitForLog(
      first,
      (line) => line.msg === 'worker died; restarting it' && line.workerPid === worker.pid,
      'the primary logs the death',
    );
    worker = await waitForWorker(first, [worker.pid]);
    assert.deepEqual(await deploymentNames(worker), ['kept']);
  });

  it('starts again after the whole gateway was killed with SIGKILL', async () => {
    process.kill(worker.pid, 'SIGKILL');
    first.kill('SIGKILL');
    await once(first, 'exit');
    await waitUntil(async () => !isAlive(worker.pid), 'the worker is gone');

    const third = start();
    const listening = await waitForWorker(third);
    assert.equal((await fetch(`${urlOf(listening)}/health/ready`)).status, 200);
    assert.deepEqual(await deploymentNames(listening), ['kept']);
    third.kill('SIGTERM');
    const [code] = await once(third, 'exit');
    assert.equal(code, 0, third.output());
  });
});
