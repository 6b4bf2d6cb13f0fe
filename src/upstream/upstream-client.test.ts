import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CallSignal } from '../pipeline/call-signal.ts';
import { UpstreamClient } from './upstream-client.ts';

const TIMEOUTS = { connectMs: 1_000, firstByteMs: 5_000, bodyMs: 5_000 };

/** A server that answers with its name and the path and query it was asked for. */
async function namedServer(name: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    response.end(`${name} ${request.method} ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://127.0.0.1:${port}` };
}

describe('UpstreamClient', () => {
  const client = new UpstreamClient(1_000, 1_000_000);
  let a: Awaited<ReturnType<typeof namedServer>>;
  let b: Awaited<ReturnType<typeof namedServer>>;
  before(async () => {
    a = await namedServer('a');
    b = await namedServer('b');
  });
  after(async () => {
    await client.close();
    for (const { server } of [a, b]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  async function answerOf(url: string, method: 'GET' | 'POST' = 'GET'): Promise<string> {
    const response = await client.send({ url, method, headers: {}, body: null }, new CallSignal(), TIMEOUTS);
    let text = '';
    for await (const chunk of response.body) text += String(chunk);
    return text;
  }

  it('sends each URL to its origin with its path and query, the same URL again as the first time', async () => {
    const urls = [
      `${a.origin}/v1/chat/completions?api-version=1`,
      `${b.origin}/v1/embeddings`,
      `${a.origin}/models/m:streamGenerateContent?alt=sse`,
    ];
    for (let round = 0; round < 2; round++) {
      assert.equal(await answerOf(urls[0], 'POST'), 'a POST /v1/chat/completions?api-version=1');
      assert.equal(await answerOf(urls[1]), 'b GET /v1/embeddings');
      assert.equal(await answerOf(urls[2]), 'a GET /models/m:streamGenerateContent?alt=sse');
    }
  });

  it('sends a URL as the WHATWG parser reads it: dot segments resolved, the query as written', async () => {
    const port = new URL(b.origin).port;
    assert.equal(await answerOf(`http://127.0.0.1:${port}/a/../v1/./x?q=%20`), 'b GET /v1/x?q=%20');
  });
});
