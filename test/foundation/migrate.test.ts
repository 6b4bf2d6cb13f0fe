import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../src/store/migrations/index.ts';
import { runMain } from '../helpers/child.ts';
import { createTestDatabase, TEST_DATABASE_ADMIN_URL, type TestDatabase } from '../helpers/database.ts';
import { testSecrets } from '../helpers/secrets.ts';
import { connectSql } from '../helpers/sql.ts';

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
    const sql = connectSql(database.url, 1);
    try {
      const rows = await sql<{ version: number }>`select version from schema_migrations order by version`;
      // Each listed migration once; versions may skip a number (one reserved by a branch not merged yet).
      assert.deepEqual(
        rows.map((row) => row.version),
        MIGRATIONS.map((migration) => migration.version),
      );
    } finally {
      await sql.end();
    }
    const again = await runMain(['migrate'], env);
    assert.equal(again.code, 0);
    assert.match(again.output, new RegExp(`schema is current \\(version ${LATEST_SCHEMA_VERSION}\\)`));
  });
});

describe('a DATABASE_URL that cannot be reached', () => {
  const PASSWORD = 'pw-never-printed-7431';

  // Contract change (issue 35 item 2): `serve` used to exit 1 here too; it now starts not ready and
  // waits for the database (test/foundation/start-without-postgres.test.ts). A migration cannot.
  it('stops `migrate` with one line naming DATABASE_URL, without its password (connection refused)', async () => {
    const closed = await listeningNowhere();
    const { code, output } = await runMain(['migrate'], {
      DATABASE_URL: `postgres://sy:${PASSWORD}@127.0.0.1:${closed}/switchyard`,
      ...testSecrets(),
    });
    assert.equal(code, 1);
    assert.match(
      output,
      /^switchyard: cannot connect to the database of DATABASE_URL \(postgres:\/\/sy:\*\*\*@127\.0\.0\.1:\d+\/switchyard\): .*ECONNREFUSED.*\n$/,
    );
    assert.doesNotMatch(output, new RegExp(PASSWORD));
  });

  it('stops `serve` naming DATABASE_URL when the server answers but refuses the connection (no such database)', async () => {
    const url = new URL(TEST_DATABASE_ADMIN_URL);
    url.pathname = '/sy_no_such_database';
    url.password = PASSWORD;
    const { code, output } = await runMain(['serve'], {
      DATABASE_URL: url.toString(),
      PORT: '0',
      ...testSecrets(),
    });
    assert.equal(code, 1);
    assert.match(
      output,
      /^switchyard: cannot connect to the database of DATABASE_URL \(.*\): .*sy_no_such_database.*\n$/,
    );
    assert.doesNotMatch(output, new RegExp(PASSWORD));
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function listeningNowhere(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
