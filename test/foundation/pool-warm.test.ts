import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startChildGateway } from '../helpers/child-gateway.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startTestGateway } from '../helpers/gateway.ts';
import { connectSql } from '../helpers/sql.ts';
import { admin, chat, createDeployment } from '../records/support.ts';

/**
 * Issue 30 finding 11: the first burst of uncached keys after a start got 503 while the database
 * pool warmed. Here a fresh `serve` (two workers, empty pools and key caches) takes a burst of 400
 * calls of 400 keys it has never seen, each with a budget and an RPM limit (a key lookup and a
 * budget seed each): every one must be served. On a loaded machine (one or two busy cores) it
 * failed again, 6-43 calls of 400, three ways: the pool's connections were being made while the
 * burst queued for them; one key read per key queued for the connections; and a statement's
 * deadline fired before the process read the answer that had arrived, its timers running before
 * its sockets. A serving process now opens its pool at start, reads the keys of a burst in one
 * statement (keys/key-row-batches.ts), and a deadline takes an answer that came in time
 * (store/database-errors.ts, withTimeout).
 */
const KEYS = 400;

describe('the first burst of uncached keys after a start', () => {
  let database: TestDatabase;
  let fake: OpenAIFake;
  let keys: string[] = [];
  let env: Record<string, string> = {};
  before(async () => {
    database = await createTestDatabase();
    fake = await new OpenAIFake().start();
    const setup = await startTestGateway({ database });
    await createDeployment(setup, { publicModel: 'chat', baseUrl: fake.baseUrl });
    const limits = { allowedModels: ['*'], budgetCents: 1000, rpmLimit: 100 };
    const issued = Array.from({ length: KEYS }, () =>
      admin<{ key: string }>(setup, 'POST', '/admin/keys', limits),
    );
    keys = (await Promise.all(issued)).map((answer) => answer.body.key);
    // The same secrets (the deployment's stored credential), Redis prefix and database.
    const { PORT: _port, ...rest } = setup.env;
    env = rest;
    await setup.close();
  });
  after(async () => {
    await fake.close();
    await database.drop();
  });

  it('a serving process opens its pool before its first call', async () => {
    const gw = await startChildGateway({ database, env: { ...env, WORKERS: '1', DB_POOL_MAX: '12' } });
    const sql = connectSql(database.url);
    try {
      const [row] = await sql<{ connections: number }>`
        select count(*)::int as connections from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`;
      assert.ok(row !== undefined && row.connections >= 12, `${row?.connections} connections open`);
    } finally {
      await sql.end();
      await gw.stop();
    }
  });

  it('is served, not answered 503 while the pools warm', async () => {
    const gw = await startChildGateway({ database, env: { ...env, WORKERS: '2' } });
    try {
      const answers = await Promise.all(keys.map((token) => chat(gw, { token, model: 'chat' })));
      const refused = answers.filter((answer) => answer.status !== 200);
      assert.deepEqual(
        refused.map((answer) => `${answer.status} ${answer.text}`),
        [],
      );
    } finally {
      await gw.stop();
    }
  });
});
