import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, mock, test } from 'node:test';
import { createTestDatabase, migrateTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { eventually } from '../../test/helpers/eventually.ts';
import { MemoryCacheStore } from '../cache/memory-cache-store.ts';
import { generateKeyHex, keyringFromJson } from '../crypto/index.ts';
import { createLogger } from '../diagnostics/logger.ts';
import { type Database, openDatabase } from '../store/database.ts';
import { DeploymentDirectory } from './deployment-directory.ts';
import { DeploymentRepository } from './deployment-repository.ts';

let testDb: TestDatabase;
let database: Database;

before(async () => {
  testDb = await createTestDatabase();
  await migrateTestDatabase(testDb.url);
  database = openDatabase({ url: testDb.url, poolMax: 2, timeoutMs: 5_000 });
});

after(async () => {
  await database.close();
  await testDb.drop();
});

function insert(publicModel: string) {
  return new DeploymentRepository(database.db).insert({
    public_model: publicModel,
    provider: 'openai-compatible',
    upstream_model: 'm',
    base_url: 'http://127.0.0.1:9/v1',
    provider_options: {},
  });
}

test('the periodic reload serves rows written without an announcement, and rebuilds nothing for an unchanged table', async () => {
  mock.timers.enable({ apis: ['setInterval'] });
  const logger = createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));
  const keyring = keyringFromJson(JSON.stringify({ k: generateKeyHex() }), 'k');
  const directory = new DeploymentDirectory(database.db, keyring, logger);
  const stop = await directory.watch(new MemoryCacheStore());
  try {
    await insert('first');
    await directory.load();
    const loaded = directory.deploymentsOf('first');
    assert.equal(loaded.length, 1);

    // The first periodic reload after a load without a digest reads the rows once more.
    mock.timers.tick(30_000);
    await eventually(() => assert.notEqual(directory.deploymentsOf('first'), loaded));
    const reread = directory.deploymentsOf('first');

    mock.timers.tick(30_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(directory.deploymentsOf('first'), reread, 'an unchanged table is not read again');

    await insert('second');
    mock.timers.tick(30_000);
    await eventually(() => assert.equal(directory.deploymentsOf('second').length, 1));
  } finally {
    await stop();
    mock.timers.reset();
  }
});
