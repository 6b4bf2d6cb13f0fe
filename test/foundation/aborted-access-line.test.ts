import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createDeployment } from '../helpers/admin-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

/** Issue 30 finding 11: a call its client abandoned left no access line at all. */
describe('the access line of a call whose client left', () => {
  let gw: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ redis: false });
    await createDeployment(gw, {
      publicModel: 'gpt',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: fake.baseUrl,
      apiKey: 'sk-upstream',
    });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it('is written once, with status 499, for a JSON call and a stream', async () => {
    fake.latencyMs = 2_000;
    for (const stream of [false, true]) {
      const requestId = `left-early-${stream}`;
      const leaving = new AbortController();
      const call = fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        signal: leaving.signal,
        headers: {
          authorization: `Bearer ${gw.masterKey}`,
          'content-type': 'application/json',
          'x-request-id': requestId,
        },
        body: JSON.stringify({ model: 'gpt', stream, messages: [{ role: 'user', content: 'hi' }] }),
      }).catch((error: unknown) => error);
      await eventually(() => assert.equal(fake.requests.length, stream ? 2 : 1, 'the upstream was called'));
      leaving.abort();
      await call;
      await eventually(() => {
        const lines = gw.logs.filter(
          (line) => line.includes(`"requestId":"${requestId}"`) && line.includes('request completed'),
        );
        assert.equal(lines.length, 1, lines.join('\n'));
        assert.match(lines[0], /"status":499/);
      });
    }
    fake.latencyMs = 0;
  });
});
