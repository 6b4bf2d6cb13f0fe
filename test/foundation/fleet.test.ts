import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { deleteExtension } from '../extensions/support.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { admin, createKey, createOpenAIDeployment } from '../helpers/admin-api.ts';
import { createTestDatabase, migrateTestDatabase } from '../helpers/database.ts';
import { eventually, waitUntil } from '../helpers/eventually.ts';
import { type Fleet, startFleet } from '../helpers/fleet.ts';
import { startRedisCluster } from '../helpers/redis-cluster.ts';
import { connectSql } from '../helpers/sql.ts';

/**
 * Issue 35 item 3: four gateway processes on one Postgres and one Redis, called round-robin as a
 * load balancer would. Each limit is shared state: a replica that kept its own would let a key
 * through four times over.
 */
const SIZE = 4;
/** 1 cent a token: a `hi` call (1 prompt token, 2 completion tokens) costs 3 cents. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };
/** The stored-responses GC's interval in this fleet. */
const GC_INTERVAL_MS = 1_000;
/** The maintenance jobs and their cycles (src/records/index.ts, src/audit/index.ts). */
const JOB_INTERVALS_MS: Record<string, number> = {
  'record-retention': 15 * 60_000,
  'audit-retention': 15 * 60_000,
  'operation-reconcile': 60_000,
  'response-state-gc': GC_INTERVAL_MS,
};
/** What the replicas must agree within (DESIGN.md section 6: pub/sub carries a change in milliseconds). */
const PROPAGATION_MS = 1_000;

const hi = (model = 'chat') => ({
  model,
  messages: [{ role: 'user' as const, content: 'hi' }],
  max_tokens: 2,
});

type Outcome = { status: number; code: string | null; tokens: number };

async function call(openai: OpenAI, model = 'chat'): Promise<Outcome> {
  try {
    const answer = await openai.chat.completions.create(hi(model));
    return { status: 200, code: null, tokens: answer.usage?.total_tokens ?? 0 };
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    return { status: error.status, code: (error as { code?: string }).code ?? null, tokens: 0 };
  }
}

/** `count` calls at once, spread over the members in turn. */
function burst(clients: OpenAI[], count: number): Promise<Outcome[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => call(clients[i % clients.length])));
}

/** The Redis the fleet shares: its settings for the members, and how to stop it. */
interface SharedRedis {
  env: Record<string, string>;
  close(): Promise<void>;
}

describeFleet('one Redis', async () => ({ env: {}, close: async () => {} }));
describeFleet('a Redis Cluster', async () => {
  const cluster = await startRedisCluster();
  return { env: { REDIS_URL: '', REDIS_CLUSTER_NODES: cluster.seeds }, close: () => cluster.close() };
});

function describeFleet(redisName: string, openRedis: () => Promise<SharedRedis>): void {
  describe(`a fleet of four gateway processes on one Postgres and ${redisName}`, () => {
    let redis: SharedRedis;
    let fake: OpenAIFake;
    let fleet: Fleet;
    /** The reservation of one `hi` call: its input estimate and max_tokens, in tokens (and cents). */
    let worstCase: number;
    /** When the fleet started (ms since the epoch). */
    let started: number;
    before(async () => {
      redis = await openRedis();
      fake = await new OpenAIFake().start();
      const database = await createTestDatabase();
      await migrateTestDatabase(database.url);
      await noteJobClaims(database.url);
      started = Date.now();
      fleet = await startFleet(
        SIZE,
        // A breaker trips on the second failure, so the extension reset below trips it quickly; the
        // stored-responses GC runs every second, so its cycles can be watched.
        {
          EXTENSION_BREAKER_THRESHOLD: '2',
          RESPONSE_STATE_GC_INTERVAL_MS: String(GC_INTERVAL_MS),
          ...redis.env,
        },
        database,
      );
      await createOpenAIDeployment(fleet.next(), {
        publicModel: 'chat',
        baseUrl: fake.baseUrl,
        pricing: CENT_A_TOKEN,
      });
      // Every member has loaded the deployment (announced through Redis) before the load starts.
      const probe = await createKey(fleet.next(), {
        name: 'probe',
        allowedModels: ['*'],
        tpmLimit: 1_000_000,
      });
      for (const openai of fleet.clients(probe.key))
        await eventually(async () => assert.equal((await call(openai)).status, 200));
      const { response } = await fleet.clients(probe.key)[0].chat.completions.create(hi()).withResponse();
      worstCase = 1_000_000 - Number(response.headers.get('x-ratelimit-remaining-tokens'));
      assert.ok(worstCase >= 3, `worst case ${worstCase}`);
      fake.latencyMs = 30;
    });
    after(async () => {
      const codes = await fleet?.close();
      await fake?.close();
      await redis?.close();
      assert.deepEqual(codes, Array(SIZE).fill(0), 'every member stopped cleanly');
    });

    it("a key's RPM holds across the fleet under concurrent load", async () => {
      const key = await createKey(fleet.next(), { name: 'rpm', allowedModels: ['*'], rpmLimit: 20 });
      const outcomes = await burst(fleet.clients(key.key), 60);
      assert.equal(outcomes.filter((o) => o.status === 200).length, 20);
      assert.ok(outcomes.filter((o) => o.status !== 200).every((o) => o.code === 'rate_limit_exceeded'));
    });

    it("a key's TPM holds across the fleet: the tokens served stay within the limit", async () => {
      const limit = 10 * worstCase;
      const key = await createKey(fleet.next(), { name: 'tpm', allowedModels: ['*'], tpmLimit: limit });
      const outcomes = [
        ...(await burst(fleet.clients(key.key), 40)),
        ...(await burst(fleet.clients(key.key), 40)),
      ];
      const served = outcomes.filter((o) => o.status === 200);
      const tokens = served.reduce((sum, o) => sum + o.tokens, 0);
      assert.ok(served.length >= 10, `served ${served.length}`);
      assert.ok(tokens <= limit, `${tokens} tokens served under a TPM of ${limit}`);
      assert.ok(outcomes.filter((o) => o.status !== 200).every((o) => o.code === 'rate_limit_exceeded'));
    });

    it("a key's budget ends at most one call's worst case over, and every member's spend reaches Postgres", async () => {
      const budget = 10 * worstCase;
      const key = await createKey(fleet.next(), {
        name: 'budget',
        allowedModels: ['*'],
        budgetCents: budget,
      });
      const served = await spendUntilRefused(fleet.clients(key.key));
      const spent = served * 3;
      assert.ok(
        spent >= budget && spent <= budget + worstCase,
        `spent ${spent} of ${budget} (worst case ${worstCase})`,
      );
      await waitUntil(
        async () => (await spendOf('virtual_keys', key.id)) === spent,
        `spend_cents ${spent}`,
        15_000,
      );
    });

    it("a team's budget shared by two keys ends at most one call's worst case over", async () => {
      const budget = 10 * worstCase;
      const team = await admin<{ id: string }>(fleet.next(), 'POST', '/teams', {
        name: 'fleet-team',
        budgetCents: budget,
        budgetPeriod: 'daily',
      });
      const keys = [
        await createKey(fleet.next(), { name: 'a', allowedModels: ['*'], teamId: team.id }),
        await createKey(fleet.next(), { name: 'b', allowedModels: ['*'], teamId: team.id }),
      ];
      const clients = [...fleet.clients(keys[0].key), ...fleet.clients(keys[1].key)];
      const served = await spendUntilRefused(clients);
      const spent = served * 3;
      assert.ok(spent >= budget && spent <= budget + worstCase, `team spent ${spent} of ${budget}`);
      await waitUntil(
        async () => (await spendOf('teams', team.id)) === spent,
        `team spend_cents ${spent}`,
        15_000,
      );
    });

    it('a key disabled through one member is refused by all within a second', async () => {
      const key = await createKey(fleet.next(), { name: 'disable', allowedModels: ['*'] });
      const clients = fleet.clients(key.key);
      // Every member has the key cached (KEY_CACHE_TTL_MS is a minute): only the announcement clears it.
      for (const openai of clients) assert.equal((await call(openai)).status, 200);
      await admin(fleet.handles[0], 'PATCH', `/keys/${key.id}`, { enabled: false });
      await refusedByAll(clients);
    });

    it('a key rotated through one member: the old secret is refused by all within a second, the new one served', async () => {
      const key = await createKey(fleet.next(), { name: 'rotate', allowedModels: ['*'] });
      for (const openai of fleet.clients(key.key)) assert.equal((await call(openai)).status, 200);
      const rotated = await admin<{ key: string }>(fleet.handles[1], 'POST', `/keys/${key.id}/rotate`, {});
      await refusedByAll(fleet.clients(key.key));
      for (const openai of fleet.clients(rotated.key)) assert.equal((await call(openai)).status, 200);
    });

    it('a cooldown started on one member is honoured by the others within a second', async () => {
      await admin(fleet.handles[0], 'PUT', '/router-settings', {
        retries: { maxAttempts: 1, backoffMs: 0 },
        cooldown: { failureThreshold: 2, windowMs: 60_000, durationMs: 30_000 },
      });
      const model = `cool-${randomBytes(3).toString('hex')}`;
      const broken = await new OpenAIFake().start();
      try {
        await createOpenAIDeployment(fleet.handles[0], { publicModel: model, baseUrl: broken.baseUrl });
        const master = fleet.clients(fleet.handles[0].masterKey);
        // Every member has routed to the deployment, so each reads its cooldown from its own
        // mirror (re-read from Redis only every 5 s): only the announcement can reach it in time.
        for (const openai of master)
          await eventually(async () => assert.equal((await call(openai, model)).status, 200));
        await eventually(async () => {
          for (const gw of fleet.handles) {
            const seen = await admin<{ cooldown: { durationMs: number } }>(gw, 'GET', '/router-settings');
            assert.equal(seen.cooldown.durationMs, 30_000);
          }
        });
        broken.reset();
        broken.failNext(2, { status: 500, body: { error: { message: 'broken', type: 'server_error' } } });
        for (let i = 0; i < 2; i++) assert.equal((await call(master[0], model)).status, 502);
        await waitUntil(
          async () => {
            const outcomes = await Promise.all(master.slice(1).map((openai) => call(openai, model)));
            return outcomes.every((o) => o.status === 429 && o.code === 'deployments_in_cooldown');
          },
          'the cooldown honoured by every other member',
          PROPAGATION_MS,
        );
        assert.equal(broken.requests.length, 2, 'no other member called the cooling deployment');
      } finally {
        await broken.close();
      }
    });

    it("an extension's breaker reset through one member reaches every member", async () => {
      const model = `ext-${randomBytes(3).toString('hex')}`;
      await createOpenAIDeployment(fleet.handles[0], { publicModel: model, baseUrl: fake.baseUrl });
      await admin(fleet.handles[0], 'POST', '/extensions', {
        id: 'fleet-guard',
        critical: true,
        models: [model],
        source: 'export function beforeUpstream() { throw new Error("not configured"); }',
      });
      const master = fleet.clients(fleet.handles[0].masterKey);
      // Each member keeps its own breaker: trip it on every one.
      for (const [i, openai] of master.entries()) {
        await eventually(async () => {
          const outcome = await call(openai, model);
          assert.equal(outcome.code, 'extension_disabled');
          const state = await admin<{ state: string }>(fleet.handles[i], 'GET', '/extensions/fleet-guard');
          assert.equal(state.state, 'tripped');
        });
      }
      const reset = await admin<{ state: string }>(
        fleet.handles[0],
        'POST',
        '/extensions/fleet-guard/reset',
        {},
      );
      assert.equal(reset.state, 'active');
      await waitUntil(
        async () => {
          const states = await Promise.all(
            fleet.handles.map((gw) => admin<{ state: string }>(gw, 'GET', '/extensions/fleet-guard')),
          );
          return states.every((state) => state.state === 'active');
        },
        'the reset reached every member',
        PROPAGATION_MS,
      );
      await deleteExtension(fleet.handles[0], 'fleet-guard');
    });

    it('runs each maintenance job once per cycle across the fleet', async () => {
      // The fleet has run a while: the GC's cycle of a second has come round several times (the
      // others' cycles, of a minute and more, have not: for them this checks no cycle ran twice).
      await waitUntil(async () => Date.now() - started > 3_500, 'the fleet ran 3.5 s', 10_000);
      const sql = connectSql(fleet.database.url);
      const claims = await sql<{
        job: string;
        at: Date;
      }>`select job, at from fleet_job_claims order by job, at`;
      await sql.end();
      for (const [job, intervalMs] of Object.entries(JOB_INTERVALS_MS)) {
        // Each member runs a job once at start, on its own; the timer's cycles are claimed.
        const times = claims.filter((claim) => claim.job === job).map((claim) => claim.at.getTime());
        for (let i = 1; i < times.length; i++) {
          // job-lock.ts: a run counts for the cycle when it started less than 90% of the interval ago.
          assert.ok(
            times[i] - times[i - 1] >= intervalMs * 0.9,
            `${job} ran twice in one cycle: ${times.join(', ')}`,
          );
        }
      }
      const gcRuns = claims.filter((claim) => claim.job === 'response-state-gc').length;
      const elapsedMs = Date.now() - started;
      assert.ok(gcRuns >= 2, `the GC ran ${gcRuns} times`);
      assert.ok(
        gcRuns <= elapsedMs / (GC_INTERVAL_MS * 0.9) + 1,
        `the GC ran ${gcRuns} times in ${elapsedMs} ms`,
      );
    });

    /** Rounds of concurrent calls until the budget refuses every one; answers how many were served. */
    async function spendUntilRefused(clients: OpenAI[]): Promise<number> {
      let served = 0;
      for (let round = 0; round < 20; round++) {
        const outcomes = await burst(clients, 40);
        served += outcomes.filter((o) => o.status === 200).length;
        for (const o of outcomes.filter((each) => each.status !== 200)) {
          assert.ok(o.code === 'budget_reserved' || o.code === 'budget_exceeded', JSON.stringify(o));
        }
        if (outcomes.every((o) => o.code === 'budget_exceeded')) return served;
      }
      assert.fail('the budget never refused every call');
    }

    async function spendOf(table: 'virtual_keys' | 'teams', id: string): Promise<number> {
      const sql = connectSql(fleet.database.url);
      try {
        const [row] = await sql.unsafe<{ spend: string }>(
          `select spend_cents::text as spend from ${table} where id = $1`,
          [id],
        );
        return Number(row.spend);
      } finally {
        await sql.end();
      }
    }
  });
}

/** Records every cycle a replica claims (job_runs is written by each claim, job-lock.ts). */
async function noteJobClaims(url: string): Promise<void> {
  const sql = connectSql(url);
  await sql.unsafe('create table fleet_job_claims (job text not null, at timestamptz not null)');
  await sql.unsafe(`create function fleet_note_claim() returns trigger language plpgsql as $$
    begin insert into fleet_job_claims values (new.job, new.last_run_at); return new; end $$`);
  await sql.unsafe(`create trigger fleet_note_claim after insert or update on job_runs
    for each row execute function fleet_note_claim()`);
  await sql.end();
}

/** Every member answers 401 invalid_api_key within PROPAGATION_MS. */
async function refusedByAll(clients: OpenAI[]): Promise<void> {
  await waitUntil(
    async () => {
      const outcomes = await Promise.all(clients.map((openai) => call(openai)));
      return outcomes.every((o) => o.status === 401 && o.code === 'invalid_api_key');
    },
    'refused by every member',
    PROPAGATION_MS,
  );
}
