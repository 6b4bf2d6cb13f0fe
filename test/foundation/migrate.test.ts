import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations/index.ts';
import { runMain } from '../helpers/child.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { testSecrets } from '../helpers/secrets.ts';

describe('npm run migrate', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('a server whose schema is behind refuses to start with a clear message', async () => {
    const { code, output } = await runMain(['serve'], {
      DATABASE_URL: database.url,
      PORT: '0',
      ...testSecrets(),
    });
    assert.equal(code, 1);
    assert.equal(
      output,
      `switchyard: database schema is at version 0 but this build needs ${LATEST_SCHEMA_VERSION}: run \`npm run migrate\` before starting the server\n`,
    );
  });

  it('applies every migration once, even when replicas run it at the same time', async () => {
    const env = { DATABASE_URL: database.url, ...testSecrets() };
    const runs = await Promise.all([
      runMain(['migrate'], env),
      runMain(['migrate'], env),
      runMain(['migrate'], env),
    ]);
    for (const run of runs) assert.equal(run.code, 0, run.output);
    const applied = runs.filter((r) => r.output.includes('applied ')).length;
    assert.equal(applied, 1, 'exactly one run applied the migrations');
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ version: number }[]>`select version from schema_migrations order by version`;
      assert.equal(rows.length, LATEST_SCHEMA_VERSION);
    } finally {
      await sql.end();
    }
    const again = await runMain(['migrate'], env);
    assert.equal(again.code, 0);
    assert.match(again.output, new RegExp(`schema is current \\(version ${LATEST_SCHEMA_VERSION}\\)`));
  });
});
