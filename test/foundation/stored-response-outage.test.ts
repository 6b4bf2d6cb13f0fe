import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { type ChildGateway, startChildGatewayBehindProxy } from '../helpers/child-gateway.ts';
import type { TestDatabase } from '../helpers/database.ts';
import type { TcpProxy } from '../helpers/tcp-proxy.ts';

/**
 * Issue 30 finding 5: during a Postgres outage `/v1/responses` with `store` (the default)
 * answered 200 with `store: false` and kept nothing, and a stream said `store: true` in
 * `response.created` and `store: false` at its end. A call that asked to be stored needs the
 * database: 503 `service_unavailable` with Retry-After, and a stream that ends in an error event.
 */
describe('stored responses during a Postgres outage', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let gw: ChildGateway;
  let fake: OpenAIFake;

  before(async () => {
    fake = await new OpenAIFake().start();
    ({ database, proxy, gw } = await startChildGatewayBehindProxy());
    const created = await fetch(`${gw.url}/admin/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        publicModel: 'gpt',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        baseUrl: fake.baseUrl,
        apiKey: 'sk-upstream-test',
      }),
    });
    assert.equal(created.status, 201, await created.text());
  });

  after(async () => {
    assert.equal(await gw.stop(), 0, gw.output());
    await proxy.close();
    await database.drop();
    await fake.close();
  });

  function respond(body: Record<string, unknown>) {
    return fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt', input: 'hi', ...body }),
    });
  }

  it('answers 503 with Retry-After for a call that asked to be stored, JSON or stream, and serves store: false', async () => {
    proxy.cut();
    try {
      const stored = await respond({});
      assert.equal(stored.status, 503, await stored.clone().text());
      assert.ok(Number(stored.headers.get('retry-after')) >= 1);
      const body = (await stored.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'service_unavailable');
      assert.match(body.error.message, /store: false/);

      const stream = await respond({ stream: true });
      const events = (await stream.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map(
          (line) =>
            JSON.parse(line.slice(6)) as {
              type?: string;
              response?: { store?: boolean; error?: { code: string } };
            },
        );
      const types = events.map((event) => event.type);
      assert.equal(events[0]?.response?.store, true, 'response.created says store: true');
      assert.ok(!types.includes('response.completed'), `no completion contradicts it: ${types.join(', ')}`);
      const last = events.at(-1);
      assert.equal(last?.type, 'response.failed', "the stream ends with the format's failure event");
      assert.equal(last?.response?.error?.code, 'service_unavailable');
      for (const event of events) assert.notEqual(event.response?.store, false, 'never store: false');

      const unstored = await respond({ store: false });
      assert.equal(unstored.status, 200, 'a call that keeps nothing needs no database');
      assert.equal(((await unstored.json()) as { store: boolean }).store, false);
    } finally {
      proxy.restore();
    }
  });
});
