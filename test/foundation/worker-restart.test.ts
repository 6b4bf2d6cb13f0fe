import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { type ChildGateway, startChildGateway } from '../helpers/child-gateway.ts';
import { logLines, urlOf, waitForLog, waitForWorker } from '../helpers/child-logs.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { admin, chat, createDeployment } from '../records/support.ts';

const THROW_ON_SIGUSR2 = fileURLToPath(new URL('../helpers/throw-on-sigusr2.ts', import.meta.url));

/**
 * `serve` is a primary supervising its worker (WORKERS=1, the default): a worker that dies is
 * restarted and the restart logged; one that hits an uncaught exception logs it, drains and
 * exits 1. The gateway runs as a child process with a test-only preload that throws on SIGUSR2.
 */
describe('worker supervision (WORKERS=1)', () => {
  let database: TestDatabase;
  let fake: OpenAIFake;
  let gateway: ChildGateway;
  /** The pids of every worker seen so far, and the newest worker's URL. */
  const workers: number[] = [];
  let url: string;

  const gw = () => ({ url, masterKey: gateway.masterKey });
  const nextWorker = async () => {
    const listening = await waitForWorker(gateway, workers);
    workers.push(listening.pid);
    url = urlOf(listening);
  };

  before(async () => {
    database = await createTestDatabase();
    fake = await new OpenAIFake().start();
    gateway = await startChildGateway({
      database,
      // A drain bound far beyond the test's timeout: the drain must end because the work is done.
      env: { NODE_OPTIONS: `--import=${THROW_ON_SIGUSR2}`, SHUTDOWN_TIMEOUT_MS: '600000' },
    });
    await nextWorker();
    await createDeployment(gw(), { publicModel: 'slow', baseUrl: fake.baseUrl });
  });
  after(async () => {
    await gateway?.stop();
    await fake?.close();
    await database?.drop();
  });

  it('restarts a worker killed with SIGKILL, logs it, and serves again', async () => {
    const [killed] = workers;
    assert.notEqual(killed, gateway.child.pid, 'the gateway runs in a worker, not in the process started');
    process.kill(killed, 'SIGKILL');
    const died = await waitForLog(
      gateway,
      (line) => line.msg === 'worker died; restarting it' && line.workerPid === killed,
      'the primary logs the death',
    );
    assert.equal(died.pid, gateway.child.pid, 'logged by the primary');
    assert.equal(died.level, 'error');
    assert.equal(died.signal, 'SIGKILL');
    assert.equal(died.crashes, 1);
    await nextWorker();
    assert.equal(gateway.child.exitCode, null, 'the primary lives on');
    assert.equal((await fetch(`${url}/health/ready`)).status, 200);
    const answer = await chat(gw(), { token: gateway.masterKey, model: 'slow', content: 'after' });
    assert.equal(answer.status, 200, answer.text);
  });

  it('logs an uncaught exception, finishes the call in flight, exits 1 and is restarted with backoff', async () => {
    const faulty = workers.at(-1) as number;
    fake.latencyMs = 1_500;
    const requestId = `fault-${faulty}`;
    const seen = fake.requests.length;
    const call = chat(gw(), { token: gateway.masterKey, model: 'slow', content: 'in flight', requestId });
    while (fake.requests.length === seen) await new Promise((r) => setTimeout(r, 20));
    process.kill(faulty, 'SIGUSR2');

    const answer = await call;
    assert.equal(answer.status, 200, `the call in flight is answered: ${answer.text}`);
    assert.match(JSON.stringify(answer.body), /echo: in flight/);
    fake.latencyMs = 0;
    const fatal = await waitForLog(
      gateway,
      (line) => line.pid === faulty && line.msg === 'uncaught exception',
      'the worker logs the exception',
    );
    assert.equal(fatal.level, 'fatal');
    assert.match(JSON.stringify(fatal.err), /induced fault/);
    const died = await waitForLog(
      gateway,
      (line) => line.msg === 'worker died; restarting it' && line.workerPid === faulty,
      'the primary logs the exit',
    );
    assert.equal(died.code, 1, 'the worker exits non-zero');
    assert.equal(died.crashes, 2, 'the second death within a minute');
    assert.equal(died.restartInMs, 500, 'the restart backs off');
    const drain = logLines(gateway)
      .filter((line) => line.pid === faulty)
      .map((line) => line.msg);
    assert.ok(drain.includes('draining before exit: no new connections, finishing calls in flight'));
    assert.ok(!drain.includes('drain did not finish in time; exiting anyway'));

    await nextWorker();
    // The drain flushed the record of the call it finished before the worker exited.
    const logs = await admin<{ data: { status: string }[] }>(
      gw(),
      'GET',
      `/admin/logs?requestId=${requestId}`,
    );
    assert.equal(logs.status, 200, logs.text);
    assert.deepEqual(
      logs.body.data.map((op) => op.status),
      ['success'],
    );
  });
});
