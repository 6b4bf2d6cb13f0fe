import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { createClient } from '@redis/client';
import OpenAI from 'openai';
import { LIMIT_KEYS } from '../../src/limits/limit-keys.ts';
import { RESERVATION_LEASE_MS } from '../../src/limits/reservation-leases.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { spawnMain, waitForListening } from '../helpers/child.ts';
import { TEST_REDIS_URL } from '../helpers/database.ts';
import { startTestGateway } from '../helpers/gateway.ts';
import { client, createDeployment, createKey, failure, waitUntil } from './support.ts';

/**
 * Issue 19 item 10: how long a key's budget may stay reserved by a process killed mid-call. Its
 * reservation is a lease in Redis (docs/operations.md, Budgets and SIGKILL): it holds the budget,
 * refusing with a retryable budget_reserved, and expires within RESERVATION_LEASE_MS.
 */
describe('a replica SIGKILLed with a call in flight', () => {
  it('leaves its reservation to expire within one lease, refusing meanwhile with budget_reserved', async () => {
    const fake = await new OpenAIFake().start();
    const setup = await startTestGateway();
    const redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    try {
      await createDeployment(setup, {
        publicModel: 'chat',
        baseUrl: fake.baseUrl,
        pricing: { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 },
      });
      const key = await createKey(setup, { budgetCents: 50 });
      const child = spawnMain(['serve'], { ...setup.env, LOG_LEVEL: 'info' });
      const port = await waitForListening(child);
      const openai = new OpenAI({ apiKey: key.key, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
      fake.latencyMs = 60_000;
      const call = openai.chat.completions.create({
        model: 'chat',
        messages: [{ role: 'user', content: 'hi' }],
      });
      call.catch(() => {});
      await waitUntil(async () => fake.requests.length > 0, 'the call reached the upstream');
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;

      const held = await failure(
        client(setup, key.key).chat.completions.create({
          model: 'chat',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      assert.equal(held.code, 'budget_reserved', 'the dead call still holds the budget');
      assert.equal(held.headers?.get('retry-after'), '1');
      const log = `${setup.env.REDIS_KEY_PREFIX}${LIMIT_KEYS.budgetHeld(key.id)}:log`;
      const ttl = await redis.pTTL(log);
      assert.ok(ttl > 0 && ttl <= RESERVATION_LEASE_MS, `the reservation expires in ${ttl} ms`);
    } finally {
      fake.latencyMs = 0;
      await redis.close();
      await setup.close();
      await fake.close();
    }
  });
});
