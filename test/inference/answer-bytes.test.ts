import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createDeployment } from '../helpers/admin-api.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

/** What the upstream answers, byte for byte: its own field order, spacing and number forms. */
const ANSWERS: Record<string, string> = {
  plain:
    '{ "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "upstream-model-2024",\n' +
    '  "choices": [{"index": 0, "message": {"role": "assistant", "content": "a \\"model\\": quoted"}, "finish_reason": "stop"}],\n' +
    '  "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}, "system_fingerprint": "fp_1", "x_latency": 1.50 }',
  nested:
    '{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"upstream-model-2024","choices":[{"index":0,' +
    '"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,' +
    '"total_tokens":2},"provider_extra":{"model":"upstream-model-2024"}}',
};

describe('native JSON answers', () => {
  let gw: TestGateway;
  let upstream: Server;
  before(async () => {
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url?.startsWith('/cut/')) {
          // Half the promised body, then the connection is gone.
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
          res.write(ANSWERS.plain.slice(0, 200), () => res.destroy());
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(ANSWERS[req.url?.startsWith('/nested/') ? 'nested' : 'plain']);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    gw = await startTestGateway({ redis: false });
    await createDeployment(gw, {
      publicModel: 'plain',
      provider: 'openai-compatible',
      upstreamModel: 'upstream-model-2024',
      baseUrl: `http://127.0.0.1:${port}/v1`,
    });
    await createDeployment(gw, {
      publicModel: 'nested',
      provider: 'openai-compatible',
      upstreamModel: 'upstream-model-2024',
      baseUrl: `http://127.0.0.1:${port}/nested/v1`,
    });
    await createDeployment(gw, {
      publicModel: 'cut',
      provider: 'openai-compatible',
      upstreamModel: 'upstream-model-2024',
      baseUrl: `http://127.0.0.1:${port}/cut/v1`,
    });
  });
  after(async () => {
    await gw?.close();
    upstream?.close();
  });

  async function send(model: string): Promise<Response> {
    return fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
  }

  async function call(model: string): Promise<string> {
    const res = await send(model);
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return text;
  }

  it('passes the upstream text on as it is, with only the model renamed', async () => {
    assert.equal(await call('plain'), ANSWERS.plain.replace('"upstream-model-2024"', '"plain"'));
  });

  it('renames only the top-level model when another object names one too', async () => {
    const answer = JSON.parse(await call('nested'));
    assert.equal(answer.model, 'nested');
    assert.deepEqual(answer.provider_extra, { model: 'upstream-model-2024' });
  });

  it('answers a body the upstream cut short as an upstream error, without its bytes', async () => {
    const res = await send('cut');
    const answer = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(res.status, 502);
    assert.equal(answer.error.code, 'upstream_error');
    assert.ok(!answer.error.message.includes('chatcmpl-1'), answer.error.message);
  });
});
