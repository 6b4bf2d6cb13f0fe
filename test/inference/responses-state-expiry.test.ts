import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createOpenAIDeployment } from '../helpers/admin-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestGateway } from '../helpers/gateway.ts';
import { sqlOn } from '../helpers/sql.ts';
import { createKey, OPENAI_UPSTREAM_KEY, openaiClient, post, rejection } from './support.ts';

type ApiError = InstanceType<typeof OpenAI.APIError>;

/** One gateway with `env`, a `gpt` deployment on an OpenAI fake, and a key. */
async function start(env: Record<string, string>) {
  const fake = await new OpenAIFake({ apiKey: OPENAI_UPSTREAM_KEY }).start();
  const gw = await startTestGateway({ env });
  await createOpenAIDeployment(gw, {
    publicModel: 'gpt',
    baseUrl: fake.baseUrl,
    apiKey: OPENAI_UPSTREAM_KEY,
  });
  const key = await createKey(gw);
  const sql = sqlOn(gw.gateway.runtime.database.background);
  return {
    gw,
    key,
    sql,
    client: openaiClient(gw, key),
    rowExists: async (id: string) => (await sql`select 1 from response_states where id = ${id}`).length === 1,
    close: async () => {
      await gw.close();
      await fake.close();
    },
  };
}

type Started = Awaited<ReturnType<typeof start>>;

describe('response state expiry, variant B (RESPONSES_STATE_RETENTION_DAYS)', () => {
  let gc: Started;
  let prune: Started;
  before(async () => {
    gc = await start({ RESPONSES_STATE_RETENTION_DAYS: '1', RESPONSE_STATE_GC_INTERVAL_MS: '1000' });
    // The job runs once at start and then not again during the test: what expires is the prune's.
    prune = await start({ RESPONSES_STATE_RETENTION_DAYS: '1', RESPONSE_STATE_GC_INTERVAL_MS: '3600000' });
  });
  after(async () => {
    await gc?.close();
    await prune?.close();
  });

  it('reads a response past its retention as gone, and the GC job deletes it', async () => {
    const old = await gc.client.responses.create({ model: 'gpt', input: 'old news' });
    const fresh = await gc.client.responses.create({ model: 'gpt', input: 'fresh news' });
    await gc.sql`update response_states set created_at = now() - interval '25 hours' where id = ${old.id}`;
    assert.equal((await rejection<ApiError>(gc.client.responses.retrieve(old.id))).status, 404);
    const continued = await rejection<ApiError>(
      gc.client.responses.create({ model: 'gpt', previous_response_id: old.id, input: 'more' }),
    );
    assert.equal(continued.status, 404);
    await eventually(async () => assert.equal(await gc.rowExists(old.id), false), 10_000);
    assert.equal(await gc.rowExists(fresh.id), true, 'a response within retention stays');
  });

  it('prunes expired rows on write traffic between GC runs', async () => {
    const old = await prune.client.responses.create({ model: 'gpt', input: 'old news' });
    await prune.sql`update response_states set created_at = now() - interval '2 days' where id = ${old.id}`;
    await eventually(async () => {
      await prune.client.responses.create({ model: 'gpt', input: 'a write' });
      assert.equal(await prune.rowExists(old.id), false);
    }, 10_000);
  });
});

describe('response state, variant A (per-row expiry, RESPONSES_STORE_DEFAULT=false)', () => {
  let a: Started;
  before(async () => {
    a = await start({
      GATEWAY_VARIANT: 'a',
      RESPONSES_STORE_DEFAULT: 'false',
      RESPONSES_STATE_RETENTION_DAYS: '3',
      RESPONSE_STATE_GC_INTERVAL_MS: '1000',
    });
  });
  after(() => a?.close());

  it('stores nothing when store is absent and RESPONSES_STORE_DEFAULT is false', async () => {
    const response = await a.client.responses.create({ model: 'gpt', input: 'not kept' });
    assert.equal((response as { store?: boolean }).store, false);
    assert.equal(await a.rowExists(response.id), false);
  });

  it('keeps stored content plain, each row with its own expiry, and expires it on that instant', async () => {
    const first = await a.client.responses.create({ model: 'gpt', input: 'first turn', store: true });
    const [row] = await a.sql`select content, envelope,
        round(extract(epoch from expires_at - created_at) / 86400) as days
      from response_states where id = ${first.id}`;
    assert.equal(row.envelope, null);
    assert.equal(JSON.parse(row.content).input[0].content, 'first turn');
    assert.equal(Number(row.days), 3);
    const second = await a.client.responses.create({
      model: 'gpt',
      previous_response_id: first.id,
      input: 'second turn',
      store: true,
    });
    assert.equal(second.output_text, 'echo: second turn');

    await a.sql`update response_states set expires_at = now() - interval '1 second' where id = ${first.id}`;
    assert.equal((await rejection<ApiError>(a.client.responses.retrieve(first.id))).status, 404);
    await eventually(async () => assert.equal(await a.rowExists(first.id), false), 10_000);
    assert.equal((await a.client.responses.retrieve(second.id)).id, second.id);
  });

  it('has no compaction: the route is 404 and a compaction item is 400 naming input', async () => {
    const compact = await post(a.gw, a.key, '/responses/compact', { model: 'gpt', input: 'x' });
    assert.equal(compact.status, 404);
    const error = await rejection<ApiError>(
      a.client.responses.create({
        model: 'gpt',
        input: [{ type: 'compaction', encrypted_content: 'sy1:k1:responses-capsule:a:b:c' }],
      }),
    );
    assert.equal(error.status, 400);
    assert.equal(error.param, 'input');
  });
});

describe('stored responses and the response cache', () => {
  let cached: Started;
  before(async () => {
    cached = await start({ RESPONSE_CACHE_TTL_MS: '60000' });
  });
  after(() => cached?.close());

  it('stores a cache hit as a response of its own, under its own id, for the key that got it', async () => {
    const first = await cached.client.responses.create({ model: 'gpt', input: 'same question' });
    const other = openaiClient(cached.gw, await createKey(cached.gw));
    const { data: hit, response } = await other.responses
      .create({ model: 'gpt', input: 'same question' })
      .withResponse();
    assert.equal(response.headers.get('x-gateway-cache'), 'hit');
    assert.notEqual(hit.id, first.id);
    assert.equal((hit as { store?: boolean }).store, true);
    const continued = await other.responses.create({
      model: 'gpt',
      previous_response_id: hit.id,
      input: 'follow-up',
    });
    assert.equal(continued.output_text, 'echo: follow-up');
    assert.equal((await rejection<ApiError>(other.responses.retrieve(first.id))).status, 404);
  });
});
