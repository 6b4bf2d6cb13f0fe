import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { spawnMain, waitForListening } from '../helpers/child.ts';
import { createTestDatabase, migrateTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { testSecrets } from '../helpers/secrets.ts';
import { connectSql, type TestSql } from '../helpers/sql.ts';
import { chat, createDeployment, eventually } from './support.ts';

/** Real server processes: one killed mid-call, one stopped by SIGTERM with calls in flight. */
describe('records across a crash and a graceful shutdown (variant B)', () => {
  let database: TestDatabase;
  let sql: TestSql;
  let fake: OpenAIFake;
  const secrets = testSecrets();
  const env = () => ({
    ...secrets,
    DATABASE_URL: database.url,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  });
  const start = async () => {
    const child = spawnMain(['serve'], env());
    const port = await waitForListening(child);
    return { child, gw: { url: `http://127.0.0.1:${port}`, masterKey: secrets.MASTER_KEY } };
  };

  before(async () => {
    database = await createTestDatabase();
    await migrateTestDatabase(database.url);
    sql = connectSql(database.url, 2);
    fake = await new OpenAIFake().start();
  });
  after(async () => {
    await sql.end();
    await fake.close();
    await database.drop();
  });

  it('marks the operation a SIGKILLed process left in_progress as abandoned after a restart', async () => {
    const first = await start();
    await createDeployment(first.gw, { publicModel: 'slow', baseUrl: fake.baseUrl });
    fake.latencyMs = 60_000;
    const requestId = `crash-${randomUUID()}`;
    const call = chat(first.gw, { token: first.gw.masterKey, model: 'slow', requestId }).catch(
      (error) => error,
    );
    await eventually(async () => {
      const [row] = await sql`select status from gateway_operations where request_id = ${requestId}`;
      return row?.status === 'in_progress' ? true : undefined;
    });
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    await call;
    fake.latencyMs = 0;

    // The call would have ended long ago: move its start past the staleness bound, as time would.
    await sql`update gateway_operations set started_at = now() - interval '1 hour' where request_id = ${requestId}`;
    const second = await start();
    try {
      const row = await eventually(async () => {
        const [op] =
          await sql`select status, finished_at from gateway_operations where request_id = ${requestId}`;
        return op?.status === 'abandoned' ? op : undefined;
      });
      assert.ok(row.finished_at instanceof Date);
    } finally {
      second.child.kill('SIGTERM');
      await once(second.child, 'exit');
    }
  });

  it('flushes every record of the calls in flight on SIGTERM', async () => {
    const { child, gw } = await start();
    await eventually(async () =>
      (await chat(gw, { token: gw.masterKey, model: 'slow' })).status === 200 ? true : undefined,
    );
    fake.latencyMs = 700;
    const prefix = `term-${randomUUID()}`;
    const calls = Array.from({ length: 12 }, (_, i) =>
      chat(gw, { token: gw.masterKey, model: 'slow', requestId: `${prefix}-${i}` }),
    );
    await eventually(async () => {
      const [row] = await sql<{ n: number }>`
        select count(*)::int as n from gateway_operations where request_id like ${`${prefix}-%`}`;
      return row.n === 12 ? true : undefined;
    });
    child.kill('SIGTERM');
    const answers = await Promise.all(calls);
    const [code] = await once(child, 'exit');
    fake.latencyMs = 0;
    assert.equal(code, 0, child.output());
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
    );
    const rows = await sql<{ status: string; n: number }>`
      select status, count(*)::int as n from gateway_operations where request_id like ${`${prefix}-%`} group by status`;
    assert.deepEqual(
      [...rows].map((row) => [row.status, row.n]),
      [['success', 12]],
    );
    const [attempts] = await sql<{ n: number }>`
      select count(*)::int as n from upstream_attempts where request_id like ${`${prefix}-%`}`;
    assert.equal(attempts.n, 12);
  });
});
