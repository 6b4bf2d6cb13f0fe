import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { TEST_REDIS_URL } from '../helpers/database.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { client, createDeployment, createKey, failure, hi, waitUntil } from './support.ts';

describe('Redis outage during a limited call', () => {
  let fake: OpenAIFake;
  let proxy: TcpProxy;
  let gw: TestGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    const target = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 6379) });
    gw = await startTestGateway({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
    await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl });
  });
  after(async () => {
    await gw?.close();
    await proxy?.close();
    await fake?.close();
  });

  for (const mode of ['cut', 'stall'] as const) {
    it(`answers 503 service_unavailable quickly when Redis is ${mode === 'cut' ? 'unreachable' : 'hanging'}, then limits again`, async () => {
      const key = await createKey(gw, { rpmLimit: 100, tpmLimit: 100_000, budgetCents: 1_000 });
      const openai = client(gw, key.key);
      await openai.chat.completions.create(hi('chat'));
      proxy[mode]();
      try {
        const started = performance.now();
        const error = await failure(openai.chat.completions.create(hi('chat')));
        const elapsedMs = performance.now() - started;
        assert.equal(error.status, 503);
        assert.equal(error.code, 'service_unavailable');
        assert.ok(Number(error.headers?.get('retry-after')) >= 1);
        // The store gives up on a command after about a second; never a hang, never a 500.
        assert.ok(elapsedMs < 3_000, `answered in ${Math.round(elapsedMs)} ms`);
      } finally {
        proxy.restore();
      }
      await waitUntil(
        async () => (await fetch(`${gw.url}/health/ready`)).status === 200,
        'ready again',
        15_000,
      );
      const { response } = await openai.chat.completions.create(hi('chat')).withResponse();
      assert.ok(response.headers.get('x-ratelimit-remaining-requests'));
    });
  }
});
