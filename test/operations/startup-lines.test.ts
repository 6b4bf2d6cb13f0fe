import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnMain } from '../helpers/child.ts';
import { waitUntil } from '../helpers/eventually.ts';

/** Starts an embedded gateway in `format`, waits for its console line, stops it; its output and master key. */
async function firstStart(
  format: 'json' | 'pretty',
): Promise<{ output: string; masterKey: string; dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sy-startup-'));
  const child = spawnMain(['serve'], { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: format });
  try {
    await waitUntil(
      async () => child.output().includes('console: http://') || child.exitCode !== null,
      'the console line',
      60_000,
    );
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  const secrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as { masterKey: string };
  await rm(dataDir, { recursive: true, force: true });
  return { output: child.output(), masterKey: secrets.masterKey, dataDir };
}

describe('start-up lines', () => {
  it('LOG_FORMAT=json: only JSON lines, saying where it listens, the stores, the master key file and the console; never the key', async () => {
    const { output, masterKey, dataDir } = await firstStart('json');
    const lines = output.trim().split('\n');
    const parsed = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return assert.fail(`not a JSON line: ${line}`);
      }
    });
    const said = (field: string) => parsed.find((line) => field in line)?.[field];
    assert.match(String(said('address')), /^127\.0\.0\.1:\d+$/);
    assert.equal(said('variant'), 'b');
    assert.equal(said('database'), `embedded PGlite in ${join(dataDir, 'db')}`);
    assert.equal(said('cacheStore'), 'in-process');
    assert.equal(
      said('masterKeySource'),
      `generated on this start, kept in ${join(dataDir, 'secrets.json')}`,
    );
    assert.match(String(said('console')), /^http:\/\/127\.0\.0\.1:\d+\/console\/$/);
    assert.ok(!output.includes(masterKey), 'a JSON log never carries the master key');
  });

  it('LOG_FORMAT=pretty: the same lines for people, and the generated key shown once', async () => {
    const { output, masterKey, dataDir } = await firstStart('pretty');
    assert.match(output, /^\d\d:\d\d:\d\d INFO {2}switchyard listening address=127\.0\.0\.1:\d+ variant=b/m);
    assert.ok(output.includes(`INFO  database: embedded PGlite in ${join(dataDir, 'db')}`), output);
    assert.match(output, /INFO {2}cache store: in-process/);
    assert.match(output, /INFO {2}master key: generated on this start, kept in .*secrets\.json/);
    assert.match(output, /INFO {2}console: http:\/\/127\.0\.0\.1:\d+\/console\//);
    assert.equal(output.split(masterKey).length - 1, 1, 'the generated key is printed exactly once');
    assert.ok(!output.includes('{"level"'), 'no JSON in pretty mode');
  });
});
