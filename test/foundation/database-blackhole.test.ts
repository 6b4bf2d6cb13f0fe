import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { type ChildGateway, startChildGatewayBehindProxy } from '../helpers/child-gateway.ts';
import type { TestDatabase } from '../helpers/database.ts';
import { connectSql, type TestSql } from '../helpers/sql.ts';
import type { TcpProxy } from '../helpers/tcp-proxy.ts';
import { type Answer, chat, createDeployment, createKey, eventually } from '../records/support.ts';

/** How long each blackhole lasts: within the 2.5-5 s that crashed the process with postgres.js. */
const BLACKHOLE_MS = 3_000;
const ROUNDS = 3;
/** Per round: master-key calls and calls of a key already in the key cache (neither needs the database). */
const SERVED_CALLS = 4;

/**
 * Postgres that accepts connections but drops every byte for a few seconds, then comes back, under
 * a small load (issue 19, item 1): the process stays up, a call that needs the database is answered
 * 503 with Retry-After while the bytes are still being dropped (never held until the database
 * returns), calls that do not need it are served, and their records and spend are written after.
 */
describe('a database that silently drops bytes, then comes back', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let fake: OpenAIFake;
  let gw: ChildGateway;
  let sql: TestSql;

  before(async () => {
    ({ database, proxy, gw } = await startChildGatewayBehindProxy());
    fake = await new OpenAIFake().start();
    sql = connectSql(database.url);
    await createDeployment(gw, {
      publicModel: 'stall',
      baseUrl: fake.baseUrl,
      pricing: { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 },
    });
  });
  after(async () => {
    proxy.restore();
    await sql.end();
    assert.equal(await gw.stop(), 0, gw.output());
    await proxy.close();
    await fake.close();
    await database.drop();
  });

  it('stays up, answers 503 + Retry-After for database work during each stall, and writes what it held after', async () => {
    const paying = await createKey(gw);
    // Created first: creating a key empties the key cache.
    const fresh = await Promise.all(Array.from({ length: ROUNDS }, () => createKey(gw)));
    // In the key cache from here on: its calls need no database read.
    assert.equal((await chat(gw, { token: paying.key, model: 'stall' })).status, 200);
    const prefix = `blackhole-${randomUUID()}`;
    const served: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      proxy.blackhole();
      const ids = Array.from({ length: SERVED_CALLS }, (_, i) => `${prefix}-${round}-${i}`);
      const [refused, answers] = await Promise.all([
        // Never used yet: authenticating it reads the database.
        Promise.all([0, 1].map(() => chat(gw, { token: fresh[round].key, model: 'stall' }))),
        Promise.all(
          ids.map((requestId, i) =>
            chat(gw, { token: i % 2 === 0 ? gw.masterKey : paying.key, model: 'stall', requestId }),
          ),
        ),
        sleep(BLACKHOLE_MS),
      ]);
      // Every call above has been answered while the bytes were still being dropped.
      assertServiceUnavailable(refused);
      assert.deepEqual(
        answers.map((answer) => answer.status),
        ids.map(() => 200),
      );
      served.push(...ids);
      proxy.restore();
      assert.equal(gw.child.exitCode, null, `the process ended:\n${gw.output()}`);
      await eventually(async () => ((await ready(gw)) ? true : undefined), 15_000);
      assert.equal((await chat(gw, { token: fresh[round].key, model: 'stall' })).status, 200);
    }

    const written = await eventually(async () => {
      const rows = await sql<{ request_id: string }>`
        select request_id from gateway_operations where request_id like ${`${prefix}-%`} and status = 'success'`;
      return rows.length === served.length ? rows : undefined;
    }, 60_000);
    assert.deepEqual(written.map((row) => row.request_id).sort(), [...served].sort());
    // Spend held during the stalls lands too: the key's spend is the sum of its calls' recorded costs.
    const spend = await eventually(async () => {
      const [key] = await sql<{ spend: number; recorded: number }>`
        select k.spend_cents as spend,
               (select sum(cost_cents) from gateway_operations o where o.key_id = k.id) as recorded
        from virtual_keys k where k.id = ${paying.id}`;
      return key.spend > 0 && Math.abs(key.spend - key.recorded) < 1e-9 ? key : undefined;
    }, 30_000);
    assert.ok(spend.recorded > 0);
    assert.equal(gw.child.exitCode, null);
    assert.doesNotMatch(gw.output(), /unhandled rejection|uncaught exception/i);
  });
});

/**
 * SIGTERM while Postgres drops every byte (issue 19, item 8): the whole shutdown, drain and flush,
 * ends within SHUTDOWN_TIMEOUT_MS (the helper's SIGKILL comes only after 15 s), and the records and
 * spend it could not write are counted in the log before the process exits.
 */
describe('SIGTERM while the database silently drops bytes', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let fake: OpenAIFake;
  let gw: ChildGateway;

  before(async () => {
    ({ database, proxy, gw } = await startChildGatewayBehindProxy({ SHUTDOWN_TIMEOUT_MS: '3000' }));
    fake = await new OpenAIFake().start();
    await createDeployment(gw, {
      publicModel: 'stall',
      baseUrl: fake.baseUrl,
      pricing: { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 },
    });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
    await database.drop();
  });

  it('exits 0 within the budget and logs the records and spend it could not write', async () => {
    const paying = await createKey(gw);
    assert.equal((await chat(gw, { token: paying.key, model: 'stall' })).status, 200);
    proxy.blackhole();
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        chat(gw, { token: i % 2 === 0 ? gw.masterKey : paying.key, model: 'stall' }),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200],
    );
    const code = await gw.stop();
    assert.equal(code, 0, gw.output());
    const lines = gw.output().split('\n');
    const lost = lines
      .filter((line) => line.includes('"queue":"gateway_operations"') && line.includes('"dropped"'))
      .map((line) => JSON.parse(line) as { dropped: number });
    assert.ok(
      lost.some((line) => line.dropped > 0),
      `the records lost are counted:\n${gw.output()}`,
    );
    const spend = lines.find((line) => line.includes('spend could not be written'));
    assert.ok(spend !== undefined, gw.output());
    assert.ok(
      (JSON.parse(spend) as { deltas: { keyId: string }[] }).deltas.some(
        (delta) => delta.keyId === paying.id,
      ),
    );
    assert.match(gw.output(), /shutdown complete/);
  });
});

function assertServiceUnavailable(answers: readonly Answer[]): void {
  for (const answer of answers) {
    assert.equal(answer.status, 503, answer.text);
    assert.equal((answer.body.error as { code?: string }).code, 'service_unavailable', answer.text);
    assert.ok(Number(answer.headers.get('retry-after')) > 0, 'Retry-After');
  }
}

async function ready(gw: ChildGateway): Promise<boolean> {
  const res = await fetch(`${gw.url}/health/ready`);
  await res.arrayBuffer();
  return res.status === 200;
}
