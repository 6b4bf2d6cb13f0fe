import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createOpenAIDeployment } from '../helpers/admin-api.ts';
import { waitUntil } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createKey, post } from '../inference/support.ts';

/** A raw connection to the gateway: what it received, and a promise of the server closing it. */
interface RawConnection {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

async function open(gw: TestGateway): Promise<RawConnection> {
  const { hostname, port } = new URL(gw.url);
  const socket = connect(Number(port), hostname);
  let text = '';
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, received: () => text, closed };
}

/** Writes `pieces` one by one, `gapMs` apart, until the server closes the connection. */
async function trickle(connection: RawConnection, pieces: string[], gapMs: number): Promise<void> {
  let closed = false;
  void connection.closed.then(() => {
    closed = true;
  });
  for (const piece of pieces) {
    if (closed) return;
    connection.socket.write(piece);
    await sleep(gapMs);
  }
}

/** The status line and the JSON body of a raw HTTP answer. */
function answerOf(raw: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head, body] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
}

/**
 * Issue 19, item 4: the server closes connections that hold a descriptor without finishing a
 * request, and streams are not cut by the request timeout. Each bound is set small here; the
 * defaults are in docs/configuration.md (HTTP server).
 */
describe('the HTTP server protects itself', { timeout: 60_000 }, () => {
  let gw: TestGateway;
  let openai: OpenAIFake;
  let key: string;

  before(async () => {
    openai = await new OpenAIFake().start();
    gw = await startTestGateway({
      env: {
        HTTP_HEADERS_TIMEOUT_MS: '600',
        HTTP_REQUEST_TIMEOUT_MS: '1500',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
        HTTP_CONNECTION_TIMEOUT_MS: '1000',
        HTTP_MAX_REQUESTS_PER_SOCKET: '2',
        UPSTREAM_MAX_ANSWER_BYTES: '4096',
      },
    });
    // One model per test that makes its deployment fail, so that no cooldown spills over.
    for (const publicModel of ['gpt', 'big-chat', 'big-messages', 'long-line']) {
      await createOpenAIDeployment(gw, { publicModel, baseUrl: openai.baseUrl, apiKey: 'sk-up' });
    }
    key = await createKey(gw, ['*']);
  });
  after(async () => {
    await gw.close();
    await openai.close();
  });

  it('closes a connection whose headers trickle in (slowloris) with a 408 in the gateway shape', async () => {
    const connection = await open(gw);
    const headers = Array.from({ length: 100 }, (_, i) => `x-slow-${i}: 1\r\n`);
    await trickle(connection, ['GET /health/live HTTP/1.1\r\nhost: x\r\n', ...headers], 100);
    await connection.closed;
    const answer = answerOf(connection.received());
    assert.equal(answer.status, 408);
    assert.match(answer.headers, /x-request-id: \S+/);
    assert.equal((answer.body.error as { code: string }).code, 'invalid_request');
  });

  it('closes a connection whose body trickles in', async () => {
    const connection = await open(gw);
    const head = `POST /admin/keys HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${gw.masterKey}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`;
    await trickle(connection, [head, ...Array.from({ length: 100 }, () => ' ')], 100);
    await connection.closed;
    assert.equal(answerOf(connection.received()).status, 408);
  });

  it('closes a connection that never sends a byte', async () => {
    const connection = await open(gw);
    await connection.closed;
  });

  it('closes an idle keep-alive connection after its timeout', async () => {
    const connection = await open(gw);
    connection.socket.write('GET /health/live HTTP/1.1\r\nhost: x\r\n\r\n');
    await connection.closed;
    assert.match(connection.received(), /^HTTP\/1\.1 200/);
  });

  it('closes a connection after HTTP_MAX_REQUESTS_PER_SOCKET requests', async () => {
    const connection = await open(gw);
    const request = 'GET /health/live HTTP/1.1\r\nhost: x\r\n\r\n';
    connection.socket.write(request);
    await sleep(50);
    connection.socket.write(request);
    await connection.closed;
    const answers = connection.received().match(/HTTP\/1\.1 200/g) ?? [];
    assert.equal(answers.length, 2);
    assert.match(connection.received().toLowerCase(), /connection: close/);
  });

  it('says connection: close on the last stream a connection may carry', async () => {
    // A streamed answer used to say `connection: keep-alive` even as the last one the connection
    // may carry (HTTP_MAX_REQUESTS_PER_SOCKET), so a keep-alive client sent its next call there
    // and Node.js answered it with a bodiless 503 (seen in the bench's SSE scenario).
    const connection = await open(gw);
    const body = JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const request =
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const ended = () => connection.received().split('\r\n0\r\n\r\n').length - 1;
    for (let call = 1; call <= 2; call++) {
      connection.socket.write(request);
      await waitUntil(async () => ended() === call, `the end of streamed answer ${call}`, 5_000);
    }
    await connection.closed;
    const heads = connection
      .received()
      .toLowerCase()
      .split('\r\n\r\n')
      .filter((part) => part.startsWith('http/1.1'));
    assert.deepEqual(
      heads.map((head) => head.split(' ')[1]),
      ['200', '200'],
    );
    assert.match(heads[0], /\r\nconnection: keep-alive/);
    assert.match(heads[1], /\r\nconnection: close/);
  });

  it('does not cut a stream that outlives the request and connection timeouts', async () => {
    openai.latencyMs = 1500;
    openai.eventDelayMs = 200;
    try {
      const res = await post(gw, key, '/chat/completions', {
        model: 'gpt',
        stream: true,
        messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }],
      });
      assert.equal(res.status, 200);
      assert.ok(res.text.trimEnd().endsWith('data: [DONE]'), res.text.slice(-200));
      assert.ok(res.text.includes('ten'));
    } finally {
      openai.reset();
    }
  });

  it('answers an upstream JSON answer past UPSTREAM_MAX_ANSWER_BYTES with 502 in the endpoint shape', async () => {
    const huge = { id: 'x', object: 'chat.completion', padding: 'p'.repeat(10_000) };
    openai.failNext(2, { status: 200, body: huge });
    const chat = await post(gw, key, '/chat/completions', {
      model: 'big-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(chat.status, 502);
    assert.equal((chat.json().error as { code: string }).code, 'upstream_error');
    openai.reset();
    openai.failNext(2, { status: 200, body: huge });
    const messages = await post(gw, key, '/messages', {
      model: 'big-messages',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(messages.status, 502);
    assert.deepEqual(Object.keys(messages.json()), ['type', 'error']);
    openai.reset();
  });

  it('ends a stream whose upstream sends an oversize SSE line with an error event', async () => {
    openai.faultNextStream({ afterEvents: 2, action: { raw: `data: ${'x'.repeat(17 * 1024 * 1024)}` } });
    try {
      const res = await post(gw, key, '/chat/completions', {
        model: 'long-line',
        stream: true,
        messages: [{ role: 'user', content: 'one two three' }],
      });
      assert.equal(res.status, 200);
      const last = res.text.trimEnd().split('\n\n').at(-1) ?? '';
      assert.match(last, /^data: \{"error":/);
      assert.equal(JSON.parse(last.slice('data: '.length)).error.code, 'upstream_error');
      assert.ok(res.text.length < 100_000, 'the oversize line is not passed on');
    } finally {
      openai.reset();
    }
    const live = await fetch(`${gw.url}/health/live`);
    assert.equal(live.status, 200);
  });
});
