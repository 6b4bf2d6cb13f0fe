import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createOpenAIDeployment } from '../helpers/admin-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { sentUpstream } from '../helpers/raw-call.ts';

const MIB = 1_048_576;

/** A valid chat body of about `bytes` bytes. */
function chatBody(model: string, bytes: number): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: 'a'.repeat(bytes) }] });
}

/**
 * Issue 19 item 6: ten 24 MB bodies at once left RSS at 2.4 GB and every other call timed out.
 * MAX_BODY_BYTES_IN_FLIGHT bounds the large bodies (over 1 MiB) one process holds at once: past
 * it, a large body is refused before it is read, with 503 `server_busy` and Retry-After in the
 * endpoint's shape, while small calls go on being served.
 */
describe('large request bodies in flight are bounded', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  const held: ClientRequest[] = [];

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ redis: false, env: { MAX_BODY_BYTES_IN_FLIGHT: String(8 * MIB) } });
    // A model the catalog does not know: no context window holds the large bodies back.
    await createOpenAIDeployment(gw, {
      publicModel: 'big',
      upstreamModel: 'big-unlisted',
      baseUrl: fake.baseUrl,
    });
  });
  after(async () => {
    for (const pending of held) pending.destroy();
    await gw.close();
    await fake.close();
  });

  /** Starts a large upload and leaves it unfinished: the gateway holds its place until it ends. */
  function holdLargeUpload(path: string, bytes: number): ClientRequest {
    const { hostname, port } = new URL(gw.url);
    const pending = request({
      hostname,
      port,
      path,
      method: 'POST',
      headers: {
        authorization: `Bearer ${gw.masterKey}`,
        'content-type': 'application/json',
        'content-length': String(bytes),
      },
    });
    pending.on('error', () => {});
    pending.write('{"model":"big","messages":[{"role":"user","content":"');
    held.push(pending);
    return pending;
  }

  function post(path: string, body: string): Promise<Response> {
    return fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
      body,
    });
  }

  it('refuses a large body past the bound with 503 server_busy, serves small calls, and admits again once it frees', async () => {
    const first = holdLargeUpload('/v1/chat/completions', 6 * MIB);
    // The held upload takes 6 of the 8 MiB once its headers are in: another 5 MiB body is refused.
    await eventually(async () => {
      const res = await post('/v1/chat/completions', chatBody('big', 5 * MIB));
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.ok(res.headers.get('x-request-id'));
      const body = (await res.json()) as { error: { code: string; type: string } };
      assert.equal(body.error.code, 'server_busy');
    }, 10_000);

    // The Anthropic endpoint refuses in its own shape.
    const messages = await post(
      '/v1/messages',
      JSON.stringify({
        model: 'big',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'a'.repeat(5 * MIB) }],
      }),
    );
    assert.equal(messages.status, 503);
    const anthropicShape = (await messages.json()) as { type: string; error: { type: string } };
    assert.equal(anthropicShape.type, 'error');
    assert.equal(anthropicShape.error.type, 'overloaded_error');

    // A small call is served while the large upload is in flight.
    const small = await post('/v1/chat/completions', chatBody('big', 100));
    assert.equal(small.status, 200, await small.clone().text());
    // So is a body under the bound's own threshold (1 MiB).
    assert.equal((await post('/v1/chat/completions', chatBody('big', MIB - 1000))).status, 200);

    // The held upload goes away: its place is free, and a large body is served again.
    first.destroy();
    await eventually(async () => {
      const res = await post('/v1/chat/completions', chatBody('big', 5 * MIB));
      assert.equal(res.status, 200);
    }, 10_000);
  });
});

/** Content after `head` whose bytes the decoding's first cut (0xFBEE8 bytes in, formats/heap-text.ts) splits two bytes into an emoji. */
function contentCutInsideEmoji(head: string): string {
  const pad = 'a'.repeat((((0xfbee8 - Buffer.byteLength(head) - 2) % 4) + 4) % 4);
  return `${pad}${'😀'.repeat(300_000)} café`;
}

/**
 * A prompt of more than a megabyte: decoded onto the heap in pieces, a cut falling inside a
 * four-byte character; on a native route sent upstream as the client's own bytes in parts, with
 * only the model's value edited and the parts' summed length as `content-length`.
 */
describe('a prompt of more than a megabyte', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ redis: false });
    await createOpenAIDeployment(gw, {
      publicModel: 'big',
      upstreamModel: 'big-unlisted',
      baseUrl: fake.baseUrl,
    });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  const send = (path: string, text: string) => sentUpstream(gw, fake, path, text);

  it("reaches the upstream as the client's bytes on a native route, the model edited", async () => {
    const head = '{ "model" : "big",\n "messages": [ {"role": "user", "content": "';
    const content = contentCutInsideEmoji(head);
    const text = `${head}${content}"} ],\n "temperature": 0.50 }`;
    const received = await send('/v1/chat/completions', text);
    assert.equal(received.rawBody, text.replace('"big"', '"big-unlisted"'));
    assert.equal((received.body as { messages: { content: string }[] }).messages[0].content, content);
    assert.equal(received.headers['content-length'], String(Buffer.byteLength(received.rawBody)));
    assert.equal(received.headers['transfer-encoding'], undefined);
  });

  it('is decoded whole where a cut falls inside a character: a translated route sends what it read', async () => {
    const head = '{"model": "big", "max_tokens": 5, "messages": [{"role": "user", "content": "';
    const content = contentCutInsideEmoji(head);
    const received = await send('/v1/messages', `${head}${content}"}]}`);
    const messages = (received.body as { messages: { role: string; content: unknown }[] }).messages;
    assert.ok(!JSON.stringify(messages).includes('\ufffd'), 'no character was cut in two');
    const user = messages.find((message) => message.role === 'user');
    const sent = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
    assert.ok(sent.includes(content), 'the prompt reaches the upstream unaltered');
  });

  /**
   * The body written in `pieces`, a pause after each so that the gateway reads them as separate
   * chunks; what the upstream received.
   */
  async function sendInPieces(path: string, pieces: readonly Buffer[]) {
    const call = request(`${gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
    });
    const answered = once(call, 'response') as Promise<[IncomingMessage]>;
    for (const piece of pieces) {
      call.write(piece);
      await delay(20);
    }
    call.end();
    const [response] = await answered;
    let text = '';
    for await (const chunk of response) text += String(chunk);
    assert.equal(response.statusCode, 200, text);
    assert.ok(fake.lastRequest);
    return fake.lastRequest;
  }

  /** A body of emoji, cut one, two and three bytes into a character, and in the model's key. */
  function piecesCutInsideCharacters(head: string, tail: string): { text: string; pieces: Buffer[] } {
    const text = `${head}${'😀'.repeat(100_000)} café${tail}`;
    const bytes = Buffer.from(text);
    const start = Buffer.byteLength(head);
    const cuts = [4, start + 65_537, start + 200_002, start + 300_003, bytes.length - 2];
    const at = [0, ...cuts, bytes.length];
    return { text, pieces: cuts.concat(bytes.length).map((end, i) => bytes.subarray(at[i], end)) };
  }

  it("reads a body received in chunks cut inside characters and inside the model's key, on both routes", async () => {
    const native = piecesCutInsideCharacters('{"model":"big","messages":[{"role":"user","content":"', '"}]}');
    const received = await sendInPieces('/v1/chat/completions', native.pieces);
    assert.equal(received.rawBody, native.text.replace('"big"', '"big-unlisted"'));
    const translated = piecesCutInsideCharacters(
      '{"model":"big","max_tokens":5,"messages":[{"role":"user","content":"',
      '"}]}',
    );
    const sent = await sendInPieces('/v1/messages', translated.pieces);
    const content = JSON.parse(translated.text).messages[0].content as string;
    assert.ok(!JSON.stringify(sent.body).includes('\ufffd'), 'no character was cut in two');
    assert.ok(JSON.stringify(sent.body).includes(content), 'the prompt reaches the upstream unaltered');
  });
});
