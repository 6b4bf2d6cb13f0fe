import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { processTree } from '../../bench/proc-stats.ts';
import { spawnNpmStart, waitForListening } from '../helpers/child.ts';
import { isAlive, logLines } from '../helpers/child-logs.ts';
import { waitUntil } from '../helpers/eventually.ts';

/**
 * The README quick start, the command itself: `npm start` (which builds `dist/` first) with
 * nothing configured serves on the embedded default, and Ctrl-C stops it cleanly.
 */
describe('embedded start (no DATABASE_URL, no REDIS_URL, no MASTER_KEY)', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sy-start-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true, maxRetries: 5 }));

  async function start() {
    const child = spawnNpmStart({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir });
    try {
      const port = await waitForListening(child, 60_000);
      return { child, port };
    } catch (error) {
      // A gateway slow to start would otherwise outlive its test and hold DATA_DIR for the next.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      throw error;
    }
  }

  /** Ctrl-C; resolves once npm and the gateway have both exited (their shared stdout closed). */
  async function interrupt(child: ReturnType<typeof spawnNpmStart>): Promise<string> {
    const closed = once(child.stdout!, 'close');
    child.interrupt();
    await closed;
    return child.output();
  }

  // Piped, the output is JSON log lines, which never hold a secret: the start that generated the
  // key says where it is kept (LOG_FORMAT=pretty, a terminal's default, prints the key itself:
  // test/operations/startup-lines.test.ts).
  it('generates a master key once, says where it is kept without printing it, and is ready', async () => {
    const first = await start();
    const file = join(dataDir, 'secrets.json');
    const secrets = JSON.parse(await readFile(file, 'utf8')) as {
      masterKey: string;
    };
    assert.ok(!first.child.output().includes(secrets.masterKey), 'never in a JSON log line');
    assert.ok(
      first.child.output().includes(`"masterKeySource":"generated on this start, kept in ${file}"`),
      'the start that generated it says so, and where',
    );
    const ready = await fetch(`http://127.0.0.1:${first.port}/health/ready`);
    assert.equal(ready.status, 200);
    const authed = await fetch(`http://127.0.0.1:${first.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secrets.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'none', messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(authed.status, 404, 'the generated key authenticates');
    assert.match(await interrupt(first.child), /"msg":"shutdown complete"/);

    const second = await start();
    assert.ok(!second.child.output().includes(secrets.masterKey), 'not printed again');
    assert.ok(second.child.output().includes(`"masterKeySource":"kept in ${file}"`), 'not generated again');
    assert.equal((await fetch(`http://127.0.0.1:${second.port}/health/ready`)).status, 200);
    assert.match(await interrupt(second.child), /"msg":"shutdown complete"/);
  });

  it('stops gracefully on SIGTERM to npm alone, as a container or process manager sends it', async () => {
    const { child, port } = await start();
    // npm, the shell it runs the script in (if any) and every gateway process.
    const tree = processTree(child.pid as number);
    const gateway = [...new Set(logLines(child).map((line) => line.pid))];
    assert.ok(gateway.length > 0 && gateway.every((pid) => tree.includes(pid)));
    try {
      process.kill(child.pid as number, 'SIGTERM');
      await waitUntil(async () => tree.every((pid) => !isAlive(pid)), 'every gateway process exited', 30_000);
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
      assert.match(child.output(), /"msg":"shutdown complete"/, 'the gateway drained and closed');
      await assert.rejects(fetch(`http://127.0.0.1:${port}/health/live`), 'nothing is left listening');
    } finally {
      if (tree.some(isAlive)) process.kill(-(child.pid as number), 'SIGKILL');
    }
  });
});
