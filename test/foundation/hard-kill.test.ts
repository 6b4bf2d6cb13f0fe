import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { type ChildGateway, startChildGatewayBehindProxy } from '../helpers/child-gateway.ts';
import { connectSql } from '../helpers/sql.ts';
import { admin, chat, createDeployment, createKey, eventually } from '../records/support.ts';

/**
 * Issue 30 finding 10: what a SIGKILL of the gateway process loses (docs/operations.md, Process
 * crash and hard kill). Each test kills a child gateway mid-load and reads what reached Postgres.
 */

const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };

async function kill(gw: ChildGateway): Promise<void> {
  const exited = once(gw.child, 'exit');
  gw.child.kill('SIGKILL');
  await exited;
}

/** A child gateway behind a Postgres proxy, and a deployment on the fake at a cent a token. */
async function setUp(fake: OpenAIFake) {
  const { database, proxy, gw } = await startChildGatewayBehindProxy();
  const sql = connectSql(database.url);
  await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl, pricing: CENT_A_TOKEN });
  return {
    database,
    proxy,
    gw,
    sql,
    async close() {
      proxy.restore();
      if (gw.child.exitCode === null && gw.child.signalCode === null) await kill(gw);
      await sql.end();
      await proxy.close();
      await database.drop();
    },
  };
}

describe('a SIGKILL of the gateway process (a child gateway, Postgres behind a proxy)', () => {
  let fake: OpenAIFake;

  before(async () => {
    fake = await new OpenAIFake().start();
  });
  after(async () => {
    await fake.close();
  });

  it('after a Postgres stall the spend writer does not wait out a 30 s statement: spend lands before the kill', async () => {
    const { proxy, gw, sql, close } = await setUp(fake);
    try {
      const paying = await createKey(gw);
      // In the key cache from here on: its calls need no database read.
      const first = await chat(gw, { token: paying.key, model: 'chat', requestId: 'kill-spend-0' });
      assert.equal(first.status, 200);
      await eventually(async () => {
        const [row] = await sql<{
          spend: number;
        }>`select spend_cents as spend from virtual_keys where id = ${paying.id}`;
        return row.spend > 0 ? row : undefined;
      });
      proxy.blackhole();
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          chat(gw, { token: paying.key, model: 'chat', requestId: `kill-spend-${i + 1}` }),
        ),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        answers.map(() => 200),
      );
      // Long enough for the spend writer to send its batch into the blackhole.
      await sleep(1_500);
      proxy.restore();
      // The documented loss is the last 250 ms flush plus a write in progress: 2.5 s is ample.
      await sleep(2_500);
      await kill(gw);
      const cost = (answer: { body: unknown }) => {
        const usage = (answer.body as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
        return usage.prompt_tokens + usage.completion_tokens;
      };
      const expected = [first, ...answers].reduce((sum, answer) => sum + cost(answer), 0);
      const [row] = await sql<{
        spend: number;
      }>`select spend_cents as spend from virtual_keys where id = ${paying.id}`;
      assert.equal(row.spend, expected, 'the spend of every call served before the stall ended');
    } finally {
      await close();
    }
  });

  it('an admin change answered just before the kill keeps its audit row', async () => {
    const { gw, sql, close } = await setUp(fake);
    try {
      const keys = await Promise.all(Array.from({ length: 3 }, () => createKey(gw)));
      for (const key of keys) {
        const deleted = await admin(gw, 'DELETE', `/admin/keys/${key.id}`);
        assert.equal(deleted.status, 200);
      }
      await kill(gw);
      const rows = await sql<{ resource_id: string }>`
        select resource_id from audit_events where method = 'DELETE' and path like '/admin/keys/%'`;
      assert.deepEqual(rows.map((row) => row.resource_id).sort(), keys.map((key) => key.id).sort());
    } finally {
      await close();
    }
  });

  it('a call in flight for 1.5 s at the kill has its in_progress record', async () => {
    const { gw, sql, close } = await setUp(fake);
    fake.latencyMs = 30_000;
    try {
      // Started a quarter second apart, so their start rows come due at every phase of the
      // record queue's one-second tick: waiting for the tick after the due time took up to 2 s.
      const ids = ['kill-flight-0', 'kill-flight-1', 'kill-flight-2', 'kill-flight-3'];
      const written = ids.map(async (requestId, i) => {
        await sleep(250 * i);
        const startedAt = Date.now();
        void chat(gw, { token: gw.masterKey, model: 'chat', requestId }).catch(() => {});
        await eventually(async () => {
          const rows = await sql`select 1 from gateway_operations where request_id = ${requestId}`;
          return rows.length > 0 ? true : undefined;
        });
        return Date.now() - startedAt;
      });
      const latencies = await Promise.all(written);
      assert.ok(
        latencies.every((ms) => ms < 1_500),
        `each start row written within 1.5 s of its call (ms: ${latencies.join(', ')})`,
      );
      await kill(gw);
      const rows = await sql<{ request_id: string; status: string }>`
        select request_id, status from gateway_operations where request_id like 'kill-flight-%'`;
      assert.deepEqual(
        rows.map((row) => `${row.request_id} ${row.status}`).sort(),
        ids.map((id) => `${id} in_progress`),
      );
    } finally {
      fake.latencyMs = 0;
      await close();
    }
  });
});
