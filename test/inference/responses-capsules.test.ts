import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createDeployment, createOpenAIDeployment } from '../helpers/admin-api.ts';
import { runMain } from '../helpers/child.ts';
import { type ChildGateway, startChildGateway } from '../helpers/child-gateway.ts';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/database.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  ANTHROPIC_UPSTREAM_KEY,
  createKey,
  type Json,
  lastJson,
  OPENAI_UPSTREAM_KEY,
  openaiClient,
  rejection,
} from './support.ts';

type ApiError = InstanceType<typeof OpenAI.APIError>;
type Compaction = { type: 'compaction'; id: string; encrypted_content: string };

const K1 = randomBytes(32).toString('hex');
const K2 = randomBytes(32).toString('hex');

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part) => part?.text ?? '').join('') : '';
}

function turnsOf(items: unknown): string[] {
  return (items as Json[]).map((item) => `${String(item.role)}: ${textOf(item.content)}`);
}

/** `POST /v1/responses/compact`; the SDK's method, whose answer is this gateway's one compaction item. */
async function compact(client: OpenAI, body: OpenAI.Responses.ResponseCompactParams): Promise<Compaction> {
  const compacted = await client.responses.compact(body);
  assert.equal(compacted.object, 'response.compaction');
  assert.equal(compacted.output.length, 1);
  const [item] = compacted.output as unknown as Compaction[];
  assert.equal(item.type, 'compaction');
  assert.ok(compacted.usage.input_tokens > 0);
  return item;
}

/**
 * Several gateways on one database, as replicas and as the same deployment rolled onto a new
 * keyring (SPEC.md, Authentication, Variant B rotation): capsules and stored state outlive a change
 * of ACTIVE_ENCRYPTION_KEY_ID while their key id stays in the keyring.
 */
describe('compaction capsules and replicas (variant B)', () => {
  let database: TestDatabase;
  let openai: OpenAIFake;
  let anthropic: AnthropicFake;
  let first: TestGateway;
  let key: string;
  let client: OpenAI;
  const shared = {
    MASTER_KEY: `sk-test-master-${randomBytes(16).toString('hex')}`,
    REDIS_KEY_PREFIX: `sy-test-${randomBytes(4).toString('hex')}:`,
  };
  const keyring = (entries: Record<string, string>, active: string) => ({
    ...shared,
    ENCRYPTION_KEYRING: JSON.stringify(entries),
    ACTIVE_ENCRYPTION_KEY_ID: active,
  });
  const gateways: TestGateway[] = [];
  const roll = async (env: Record<string, string>) => {
    const gw = await startTestGateway({ database, env });
    gateways.push(gw);
    return gw;
  };

  before(async () => {
    database = await createTestDatabase();
    openai = await new OpenAIFake({ apiKey: OPENAI_UPSTREAM_KEY }).start();
    anthropic = await new AnthropicFake({ apiKey: ANTHROPIC_UPSTREAM_KEY }).start();
    first = await roll(keyring({ k1: K1 }, 'k1'));
    await createOpenAIDeployment(first, {
      publicModel: 'gpt',
      baseUrl: openai.baseUrl,
      apiKey: OPENAI_UPSTREAM_KEY,
    });
    await createDeployment(first, {
      publicModel: 'claude',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: anthropic.url,
      apiKey: ANTHROPIC_UPSTREAM_KEY,
    });
    key = await createKey(first);
    client = openaiClient(first, key);
  });
  after(async () => {
    for (const gw of gateways) await gw.close();
    await openai?.close();
    await anthropic?.close();
    await database?.drop();
  });

  let capsule: Compaction;
  let stored: string;

  it('compacts a stored conversation and a new input into one capsule, opened on another provider', async () => {
    const response = await client.responses.create({ model: 'claude', input: 'first turn' });
    stored = response.id;
    capsule = await compact(client, {
      model: 'claude',
      previous_response_id: stored,
      input: [{ role: 'user', content: 'second turn' }],
    });
    assert.match(capsule.encrypted_content, /^sy1:k1:responses-capsule:/);
    assert.equal(capsule.encrypted_content.includes('first turn'), false);
    const answer = await client.responses.create({
      model: 'gpt',
      input: [capsule, { role: 'user', content: 'third turn' }],
    });
    assert.equal(answer.output_text, 'echo: third turn');
    assert.deepEqual(turnsOf(lastJson(openai).input), [
      'user: first turn',
      'assistant: echo: first turn',
      'user: second turn',
      'user: third turn',
    ]);
  });

  it('refuses a tampered, truncated or foreign capsule with 400 naming input, before any upstream call', async () => {
    const sent = openai.requests.length;
    const body = capsule.encrypted_content;
    const flipped = `${body.slice(0, 40)}${body[40] === 'A' ? 'B' : 'A'}${body.slice(41)}`;
    const other = openaiClient(first, await createKey(first));
    const cases: Array<[OpenAI, string]> = [
      [client, flipped],
      [client, body.slice(0, body.length - 10)],
      [client, 'not a capsule'],
      [other, body],
    ];
    for (const [caller, encrypted] of cases) {
      const error = await rejection<ApiError>(
        caller.responses.create({ model: 'gpt', input: [{ ...capsule, encrypted_content: encrypted }] }),
      );
      assert.equal(error.status, 400);
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.param, 'input');
    }
    assert.equal(openai.requests.length, sent);
  });

  it('a second gateway process on the same database sees the state the first wrote, at once', async () => {
    let child: ChildGateway | undefined;
    try {
      child = await startChildGateway({
        database,
        env: { ...keyring({ k1: K1 }, 'k1'), REDIS_URL: TEST_REDIS_URL },
      });
      const replica = new OpenAI({ apiKey: key, baseURL: `${child.url}/v1`, maxRetries: 0 });
      const written = await client.responses.create({ model: 'gpt', input: 'first turn' });
      const continued = await replica.responses.create({
        model: 'claude',
        previous_response_id: written.id,
        input: 'second turn',
      });
      assert.equal(continued.output_text, 'echo: second turn');
      // And back: what the child wrote, the first reads the moment the child answered.
      assert.equal((await client.responses.retrieve(continued.id)).previous_response_id, written.id);
    } finally {
      await child?.stop();
    }
  });

  it('after the active key changes, old capsules and old state still open; new ones use the new key', async () => {
    const rolled = await roll(keyring({ k1: K1, k2: K2 }, 'k2'));
    const after = openaiClient(rolled, key);
    const answer = await after.responses.create({
      model: 'gpt',
      input: [capsule, { role: 'user', content: 'again' }],
    });
    assert.equal(answer.output_text, 'echo: again');
    const continued = await after.responses.create({
      model: 'gpt',
      previous_response_id: stored,
      input: 'more',
    });
    assert.equal(continued.output_text, 'echo: more');
    const fresh = await compact(after, { model: 'gpt', input: 'new capsule' });
    assert.match(fresh.encrypted_content, /^sy1:k2:responses-capsule:/);
  });

  it('encryption:rotate re-encrypts stored state and reports it; a second run reports zero', async () => {
    const env = {
      ...keyring({ k1: K1, k2: K2 }, 'k2'),
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
    };
    const firstRun = await runMain(['encryption:rotate'], { ...env, LOG_LEVEL: 'warn' });
    assert.equal(firstRun.code, 0, firstRun.output);
    const count = Number(/^response_states: (\d+) re-encrypted$/m.exec(firstRun.output)?.[1]);
    assert.ok(count >= 2, firstRun.output);
    const secondRun = await runMain(['encryption:rotate'], { ...env, LOG_LEVEL: 'warn' });
    assert.match(secondRun.output, /^response_states: 0 re-encrypted$/m);
  });

  it('once the old key id leaves the keyring, its capsules are 400 and rotated state still reads', async () => {
    const retired = await roll(keyring({ k2: K2 }, 'k2'));
    const later = openaiClient(retired, key);
    const error = await rejection<ApiError>(later.responses.create({ model: 'gpt', input: [capsule] }));
    assert.equal(error.status, 400);
    assert.equal(error.param, 'input');
    assert.equal((await later.responses.retrieve(stored)).id, stored);
  });
});
