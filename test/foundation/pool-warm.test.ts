import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startChildGateway } from '../helpers/child-gateway.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startTestGateway } from '../helpers/gateway.ts';
import { admin, chat, createDeployment } from '../records/support.ts';

/**
 * Issue 30 finding 11: the first burst of uncached keys after a start got 503 while the database
 * pool warmed. Here a fresh `serve` (two workers, empty pools and key caches) takes a burst of 400
 * calls of 400 keys it has never seen, each with a budget and an RPM limit (a key lookup and a
 * budget seed each): every one must be served. Not reproduced on this build (all 200 in about
 * 2 s); the test stays as the guard.
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
