import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { runMain, spawnMain, waitForListening } from '../helpers/child.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { waitUntil } from '../helpers/eventually.ts';
import { testSecrets } from '../helpers/secrets.ts';

const WORDS = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');

describe('SIGTERM drains in-flight requests (streams included)', () => {
  let database: TestDatabase;
  let fake: OpenAIFake;
  before(async () => {
    database = await createTestDatabase();
    fake = await new OpenAIFake({ apiKey: 'sk-upstream-drain' }).start();
    fake.eventDelayMs = 40;
  });
  after(async () => {
    await fake.close();
    await database.drop();
  });

  it('finishes every in-flight call, refuses new ones, then exits 0', async () => {
    const secrets = testSecrets();
    const env = { DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', ...secrets };
    assert.equal((await runMain(['migrate'], env)).code, 0);
    const child = spawnMain(['serve'], env);
    const port = await waitForListening(child);
    const base = `http://127.0.0.1:${port}`;
    const created = await fetch(`${base}/admin/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secrets.MASTER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        publicModel: 'slow',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        baseUrl: fake.baseUrl,
        apiKey: 'sk-upstream-drain',
      }),
    });
    assert.equal(created.status, 201);
    const client = new OpenAI({ apiKey: secrets.MASTER_KEY, baseURL: `${base}/v1`, maxRetries: 0 });

    const streams = Array.from({ length: 4 }, async () => {
      const stream = await client.chat.completions.create({
        model: 'slow',
        messages: [{ role: 'user', content: WORDS }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      return text;
    });
    const plain = Array.from({ length: 4 }, () =>
      client.chat.completions.create({ model: 'slow', messages: [{ role: 'user', content: WORDS }] }),
    );
    // Let every call reach the upstream, then ask the process to stop while they are in flight.
    while (fake.requests.length < 8) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGTERM');
    const exited = once(child, 'exit');

    // The drain closes the listener at once; on a loaded machine the signal may take more than a
    // moment to be handled, so wait for the refusal (bounded) rather than a fixed sleep, and check
    // it came while the calls were still in flight.
    let finished = false;
    const allDone = Promise.all([...streams, ...plain]).finally(() => {
      finished = true;
    });
    await waitUntil(
      () =>
        fetch(`${base}/health/live`).then(
          () => false,
          () => true,
        ),
      'no new connection is accepted while draining',
      5_000,
    );
    assert.equal(finished, false, 'the listener closed while the calls were still in flight');
    await allDone;

    for (const text of await Promise.all(streams)) assert.equal(text, `echo: ${WORDS}`);
    for (const answer of await Promise.all(plain))
      assert.equal(answer.choices[0].message.content, `echo: ${WORDS}`);
    const [code] = await exited;
    assert.equal(code, 0);
    assert.match(child.output(), /shutdown complete/);
  });
});
