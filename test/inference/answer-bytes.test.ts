import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createDeployment } from '../helpers/admin-api.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createKey, recordedCostCents, waitUntil } from '../limits/support.ts';

const TOP = '"id":"chatcmpl-9","object":"chat.completion","created":1700000000,"model":"upstream-model"';
const USAGE = '"usage":{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11}';

/**
 * What the upstream answers, by the first segment of the path, byte for byte: its own field
 * order, spacing and number forms. `odd-inside` is right at its top level and wrong inside (a
 * role and a content no schema allows): a native answer is passed on unparsed (docs/decisions/
 * hot-path.md, Native answers not parsed), so it reaches the client as the upstream wrote it, as
 * through a proxy. `no-choices`, `usage-null` and `escaped-key` are not provably of the shape at
 * their top level, so they are parsed and checked whole.
 */
const ANSWERS: Record<string, string> = {
  plain:
    '{ "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "upstream-model-2024",\n' +
    '  "choices": [{"index": 0, "message": {"role": "assistant", "content": "a \\"model\\": quoted"}, "finish_reason": "stop"}],\n' +
    '  "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}, "system_fingerprint": "fp_1", "x_latency": 1.50 }',
  nested:
    '{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"upstream-model-2024","choices":[{"index":0,' +
    '"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,' +
    '"total_tokens":2},"provider_extra":{"model":"upstream-model-2024"}}',
  'odd-inside': `{${TOP},"choices":[{"index":0,"message":{"role":"robot","content":42},"finish_reason":"stop"}],${USAGE}}`,
  large: `{${TOP},"choices":[{"index":0,"message":{"role":"assistant","content":"${'words '.repeat(40_000)}"},"finish_reason":"stop"}],${USAGE}}`,
  'no-choices': `{${TOP},${USAGE}}`,
  'usage-null': `{${TOP},"choices":[{"index":0,"message":{"role":"assistant","content":"two words"},"finish_reason":"stop"}],"usage":null}`,
  'escaped-key': `{${TOP},"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],${USAGE},"us\\u0061ge":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
};

/**
 * An answer of 2-, 3- and 4-byte characters that the upstream sends in pieces (PIECES), written
 * one at a time: the first cut falls inside the model's value, the others inside characters.
 */
const MULTI_BYTE = Buffer.from(
  `{${TOP},"choices":[{"index":0,"message":{"role":"assistant","content":"${'é€𝄞 '.repeat(3_000)}"},"finish_reason":"stop"}],${USAGE}}`,
);
const PIECES = [TOP.indexOf('upstream-') + 5, ...Array.from({ length: 40 }, (_, i) => 90 + i * 997)];

/** Writes MULTI_BYTE cut at PIECES, each piece on a later turn, with or without its length. */
async function writeInPieces(res: ServerResponse, sized: boolean): Promise<void> {
  const length = sized ? { 'content-length': String(MULTI_BYTE.length) } : {};
  res.writeHead(200, { 'content-type': 'application/json', ...length });
  const cuts = [0, ...PIECES.filter((cut) => cut < MULTI_BYTE.length), MULTI_BYTE.length];
  for (let i = 1; i < cuts.length; i++) {
    res.write(MULTI_BYTE.subarray(cuts[i - 1], cuts[i]));
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}

/** 1 cent a token: a call's recorded cost in cents is its billed token count. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };

describe('native JSON answers', () => {
  let gw: TestGateway;
  /** The same upstream behind a gateway with the response cache on. */
  let cached: TestGateway;
  let upstream: Server;
  before(async () => {
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url?.startsWith('/pieces')) {
          void writeInPieces(res, req.url.startsWith('/pieces-sized/'));
          return;
        }
        if (req.url?.startsWith('/cut/')) {
          // Half the promised body, then the connection is gone.
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
          res.write(ANSWERS.plain.slice(0, 200), () => res.destroy());
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(ANSWERS[req.url?.split('/')[1] ?? '']);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    const deploy = (on: TestGateway, name: string) =>
      createDeployment(on, {
        publicModel: name,
        provider: 'openai-compatible',
        upstreamModel: 'upstream-model-2024',
        baseUrl: `http://127.0.0.1:${port}/${name}/v1`,
        pricing: CENT_A_TOKEN,
      });
    // A sampled call's record reads its answer (docs/configuration.md,
    // OBSERVABILITY_PAYLOAD_SAMPLE_RATE), which parses a passed-on answer: this gateway samples
    // none, so a 1% draw cannot fail the parse-counting test.
    gw = await startTestGateway({ redis: false, env: { OBSERVABILITY_PAYLOAD_SAMPLE_RATE: '0' } });
    for (const name of [...Object.keys(ANSWERS), 'cut', 'pieces', 'pieces-sized']) await deploy(gw, name);
    cached = await startTestGateway({ redis: false, env: { RESPONSE_CACHE_TTL_MS: '60000' } });
    await deploy(cached, 'pieces');
  });
  after(async () => {
    await gw?.close();
    await cached?.close();
    upstream?.close();
  });

  async function send(model: string, key = gw.masterKey, on = gw): Promise<Response> {
    return fetch(`${on.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
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

  it('renames the model of an answer that came in pieces, the model and characters cut across them', async () => {
    for (const model of ['pieces', 'pieces-sized']) {
      const res = await send(model);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200, bytes.toString());
      assert.equal(res.headers.get('content-length'), String(bytes.length));
      assert.deepEqual(bytes, Buffer.from(MULTI_BYTE.toString().replace('"upstream-model"', `"${model}"`)));
    }
  });

  it('stores the renamed answer whole in the response cache, and a hit answers the same bytes', async () => {
    const miss = await send('pieces', cached.masterKey, cached);
    const hit = await send('pieces', cached.masterKey, cached);
    assert.equal(miss.headers.get('x-gateway-cache'), 'miss');
    assert.equal(hit.headers.get('x-gateway-cache'), 'hit');
    const expected = MULTI_BYTE.toString().replace('"upstream-model"', '"pieces"');
    assert.equal(await miss.text(), expected);
    assert.equal(await hit.text(), expected);
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

  async function sent(model: string, key: string): Promise<{ status: number; text: string }> {
    const res = await send(model, key);
    return { status: res.status, text: await res.text() };
  }

  it('passes an answer right at its top level on as written, and bills the usage it names', async () => {
    const key = await createKey(gw);
    const answer = await sent('odd-inside', key.key);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.text, ANSWERS['odd-inside'].replace('"upstream-model"', '"odd-inside"'));
    const databaseUrl = gw.database!.url;
    await waitUntil(
      async () => (await recordedCostCents(databaseUrl, key.id)).calls === 1,
      'the call recorded',
    );
    assert.deepEqual(await recordedCostCents(databaseUrl, key.id), { calls: 1, cents: 11 });
  });

  it('never parses a passed-on answer whole on its way to the client', async () => {
    const lengths: number[] = [];
    const parse = JSON.parse;
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      lengths.push(String(text).length);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    let text: string;
    try {
      text = await call('large');
    } finally {
      JSON.parse = parse;
    }
    assert.equal(text, ANSWERS.large.replace('"upstream-model"', '"large"'));
    const longest = Math.max(0, ...lengths);
    assert.ok(longest < ANSWERS.large.length / 10, `a text of ${longest} characters was parsed`);
  });

  it('still refuses an answer without the members its format requires', async () => {
    const answer = await sent('no-choices', gw.masterKey);
    assert.equal(answer.status, 502, answer.text);
    assert.ok(!answer.text.includes('chatcmpl-9'), answer.text);
  });

  it('parses an answer without usage whole, and bills what it counts', async () => {
    const key = await createKey(gw);
    const answer = await sent('usage-null', key.key);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(JSON.parse(answer.text).model, 'usage-null');
    const databaseUrl = gw.database!.url;
    await waitUntil(
      async () => (await recordedCostCents(databaseUrl, key.id)).calls === 1,
      'the call recorded',
    );
    assert.ok((await recordedCostCents(databaseUrl, key.id)).cents > 0);
  });

  it('parses an answer with an escaped key whole, billing the usage a parser reads (the last)', async () => {
    const key = await createKey(gw);
    const answer = await sent('escaped-key', key.key);
    assert.equal(answer.status, 200, answer.text);
    const databaseUrl = gw.database!.url;
    await waitUntil(
      async () => (await recordedCostCents(databaseUrl, key.id)).calls === 1,
      'the call recorded',
    );
    assert.deepEqual(await recordedCostCents(databaseUrl, key.id), { calls: 1, cents: 2 });
  });
});
