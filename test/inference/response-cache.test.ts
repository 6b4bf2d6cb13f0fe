import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { TEST_REDIS_URL } from '../helpers/database.ts';
import { eventually, waitUntil } from '../helpers/eventually.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { connectSql } from '../helpers/sql.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import {
  ANTHROPIC_UPSTREAM_KEY,
  admin,
  anthropicClient,
  createDeployment,
  OPENAI_UPSTREAM_KEY,
  openaiClient,
  post,
} from './support.ts';

const CACHE_ENV = { RESPONSE_CACHE_TTL_MS: '60000' };
/** Priced, so a call that reaches the upstream costs something and a hit visibly does not. */
const PRICING = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };

interface Operation {
  requestId: string;
  status: string;
  cacheHit: boolean;
  costCents: number;
  inputTokens: number | null;
  deploymentId: string | null;
  attempts: unknown[];
}

/** A gateway with the cache on, an OpenAI-format and an Anthropic upstream, and a budgeted key. */
async function startCachedGateway(env: Record<string, string> = {}, storage?: 'embedded') {
  const openai = await new OpenAIFake({ apiKey: OPENAI_UPSTREAM_KEY }).start();
  const anthropic = await new AnthropicFake({ apiKey: ANTHROPIC_UPSTREAM_KEY }).start();
  const gw = await startTestGateway({
    env: { ...CACHE_ENV, ...env },
    ...(storage === undefined ? {} : { storage, redis: false }),
  });
  const openaiModel = (publicModel: string, upstreamModel: string) =>
    createDeployment(gw, {
      publicModel,
      provider: 'openai',
      upstreamModel,
      baseUrl: openai.baseUrl,
      apiKey: OPENAI_UPSTREAM_KEY,
      pricing: PRICING,
    });
  await openaiModel('gpt', 'gpt-4o-mini');
  await openaiModel('gpt-b', 'gpt-4o-mini');
  await openaiModel('embed', 'text-embedding-3-small');
  await openaiModel('image', 'gpt-image-1');
  await createDeployment(gw, {
    publicModel: 'claude',
    provider: 'anthropic',
    upstreamModel: 'claude-sonnet-4-5',
    baseUrl: anthropic.url,
    apiKey: ANTHROPIC_UPSTREAM_KEY,
    pricing: PRICING,
  });
  const key = await admin<{ id: string; key: string }>(gw, 'POST', '/keys', {
    name: 'cache-test',
    allowedModels: ['*'],
    budgetCents: 1_000_000,
    tpmLimit: 1_000_000,
  });
  return {
    gw,
    openai,
    anthropic,
    key,
    /** Requests the upstreams received so far. */
    upstreamCalls: () => openai.requests.length + anthropic.requests.length,
    close: async () => {
      await gw.close();
      await Promise.all([openai.close(), anthropic.close()]);
    },
  };
}

type CachedGateway = Awaited<ReturnType<typeof startCachedGateway>>;

let prompts = 0;
/** A prompt no other test sends, so every test starts on an empty entry. */
function freshPrompt(): string {
  prompts += 1;
  return `cache test prompt ${prompts} ${process.pid}`;
}

function chatBody(prompt: string, extra: Record<string, unknown> = {}) {
  return { model: 'gpt', messages: [{ role: 'user', content: prompt }], max_tokens: 20, ...extra };
}

async function operationOf(gw: TestGateway, requestId: string): Promise<Operation> {
  let found: Operation | undefined;
  await eventually(async () => {
    const page = await admin<{ data: Operation[] }>(gw, 'GET', `/logs?requestId=${requestId}`);
    found = page.data.find((op) => op.status !== 'in_progress');
    assert.ok(found, `the record of ${requestId}`);
  });
  return found as Operation;
}

describe('response cache (RESPONSE_CACHE_TTL_MS set), Postgres and Redis', () => {
  let up: CachedGateway;
  before(async () => {
    up = await startCachedGateway();
  });
  after(() => up?.close());

  it('answers the same chat body from the cache: same answer, no upstream call, whatever the key order', async () => {
    const prompt = freshPrompt();
    const first = await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt));
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('x-gateway-cache'), 'miss');
    const calls = up.upstreamCalls();
    const reordered = JSON.stringify({
      max_tokens: 20,
      messages: [{ content: prompt, role: 'user' }],
      model: 'gpt',
    });
    const second = await post(up.gw, up.key.key, '/chat/completions', reordered);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.headers.get('x-gateway-cache'), 'hit');
    assert.equal(second.headers.get('x-switchyard-attempts'), '0');
    assert.deepEqual(second.json(), first.json());
    assert.equal(up.upstreamCalls(), calls, 'a hit never reaches the upstream');
  });

  it('serves the official openai client from the cache, plain and streamed with the usage chunk', async () => {
    const client = openaiClient(up.gw, up.key.key);
    const prompt = freshPrompt();
    const request = { model: 'gpt', messages: [{ role: 'user' as const, content: prompt }], max_tokens: 20 };
    const miss = await client.chat.completions.create(request).withResponse();
    assert.equal(miss.response.headers.get('x-gateway-cache'), 'miss');
    const calls = up.upstreamCalls();
    const hit = await client.chat.completions.create(request).withResponse();
    assert.equal(hit.response.headers.get('x-gateway-cache'), 'hit');
    assert.deepEqual(hit.data, miss.data);

    const stream = await client.chat.completions
      .create({ ...request, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    assert.equal(stream.response.headers.get('x-gateway-cache'), 'hit');
    let text = '';
    let usage: unknown = null;
    let finish: string | null = null;
    for await (const chunk of stream.data) {
      assert.equal(chunk.id, miss.data.id);
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, miss.data.choices[0].message.content);
    assert.equal(finish, miss.data.choices[0].finish_reason);
    assert.deepEqual(usage, miss.data.usage);
    assert.equal(up.upstreamCalls(), calls);
  });

  it('stores a streamed answer whole, and answers a plain call with it', async () => {
    const client = openaiClient(up.gw, up.key.key);
    const prompt = freshPrompt();
    const request = { model: 'gpt', messages: [{ role: 'user' as const, content: prompt }], max_tokens: 20 };
    const streamed = await client.chat.completions.create({ ...request, stream: true }).withResponse();
    assert.equal(streamed.response.headers.get('x-gateway-cache'), 'miss');
    let text = '';
    for await (const chunk of streamed.data) text += chunk.choices[0]?.delta.content ?? '';
    const calls = up.upstreamCalls();
    const plain = await client.chat.completions.create(request).withResponse();
    assert.equal(plain.response.headers.get('x-gateway-cache'), 'hit');
    assert.equal(plain.data.object, 'chat.completion');
    assert.equal(plain.data.model, 'gpt');
    assert.equal(plain.data.choices[0].message.content, text);
    // The client was not sent the usage chunk, but the stored answer has the usage the upstream sent.
    assert.ok((plain.data.usage?.prompt_tokens ?? 0) > 0, JSON.stringify(plain.data.usage));
    assert.equal(up.upstreamCalls(), calls);
  });

  it('serves Anthropic Messages from the cache to the official client, streamed as Anthropic events', async () => {
    const client = anthropicClient(up.gw, up.key.key);
    const request = {
      model: 'claude',
      max_tokens: 50,
      messages: [{ role: 'user' as const, content: freshPrompt() }],
    };
    const miss = await client.messages.create(request).withResponse();
    assert.equal(miss.response.headers.get('x-gateway-cache'), 'miss');
    const calls = up.upstreamCalls();
    const stream = client.messages.stream(request);
    const events: string[] = [];
    for await (const event of stream) events.push(event.type);
    const replayed = await stream.finalMessage();
    assert.deepEqual(replayed.content, miss.data.content);
    assert.equal(replayed.stop_reason, miss.data.stop_reason);
    assert.equal(replayed.id, miss.data.id);
    assert.equal(events[0], 'message_start');
    assert.equal(events.at(-1), 'message_stop');
    assert.equal(up.upstreamCalls(), calls);
  });

  it('serves the Responses API from the cache, streamed', async () => {
    const client = openaiClient(up.gw, up.key.key);
    const input = freshPrompt();
    // Not stored: a stored hit is a response of its own, under a new id (responses-state-expiry.test.ts).
    const miss = await client.responses.create({ model: 'gpt', input, store: false });
    const calls = up.upstreamCalls();
    const stream = await client.responses.create({ model: 'gpt', input, stream: true, store: false });
    let text = '';
    let completed: { id: string; output_text?: string } | null = null;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    assert.equal(text, miss.output_text);
    assert.equal(completed?.id, miss.id);
    assert.equal(up.upstreamCalls(), calls);
  });

  it('caches embeddings', async () => {
    const body = { model: 'embed', input: freshPrompt() };
    const miss = await post(up.gw, up.key.key, '/embeddings', body);
    assert.equal(miss.headers.get('x-gateway-cache'), 'miss');
    const hit = await post(up.gw, up.key.key, '/embeddings', body);
    assert.equal(hit.headers.get('x-gateway-cache'), 'hit');
    assert.deepEqual(hit.json(), miss.json());
  });

  it('keys on the model and on every field that changes the answer, not on stream, user or metadata', async () => {
    const prompt = freshPrompt();
    await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt));
    const status = async (body: unknown) =>
      (await post(up.gw, up.key.key, '/chat/completions', body)).headers.get('x-gateway-cache');
    assert.equal(await status(chatBody(prompt, { model: 'gpt-b' })), 'miss');
    assert.equal(await status(chatBody(prompt, { temperature: 0.5 })), 'miss');
    assert.equal(await status(chatBody(prompt, { max_tokens: 21 })), 'miss');
    assert.equal(await status(chatBody(prompt, { user: 'someone', metadata: { team: 'a' } })), 'hit');
  });

  it('honours Cache-Control: no-cache skips the lookup and refreshes the entry, no-store keeps it out', async () => {
    const prompt = freshPrompt();
    await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt));
    const calls = up.upstreamCalls();
    const fresh = await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt), {
      'cache-control': 'no-cache',
    });
    assert.equal(fresh.headers.get('x-gateway-cache'), 'bypass');
    assert.equal(up.upstreamCalls(), calls + 1, 'no-cache goes to the upstream');

    const unstored = freshPrompt();
    const noStore = await post(up.gw, up.key.key, '/chat/completions', chatBody(unstored), {
      'cache-control': 'private, no-store',
    });
    assert.equal(noStore.headers.get('x-gateway-cache'), 'miss');
    const after = await post(up.gw, up.key.key, '/chat/completions', chatBody(unstored));
    assert.equal(after.headers.get('x-gateway-cache'), 'miss', 'a no-store answer was not stored');
  });

  it('does not store an upstream error', async () => {
    const prompt = freshPrompt();
    up.openai.failNext(1, {
      status: 400,
      body: { error: { message: 'bad', type: 'invalid_request_error' } },
    });
    const failed = await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt));
    assert.equal(failed.status, 400);
    const retried = await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt));
    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('x-gateway-cache'), 'miss');
  });

  for (const action of ['end', 'destroy'] as const) {
    it(`does not store a stream the upstream broke (${action} after two events)`, async () => {
      const prompt = freshPrompt();
      up.openai.faultNextStream({ afterEvents: 2, action });
      const broken = await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt, { stream: true }));
      assert.equal(broken.status, 200);
      assert.match(broken.text, /"error"/, 'the stream ended with an error event');
      const next = await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt));
      assert.equal(next.status, 200, next.text);
      assert.equal(next.headers.get('x-gateway-cache'), 'miss');
    });
  }

  it('records a hit as a hit: no attempt, no tokens, no cost, nothing added to the spend', async () => {
    const prompt = freshPrompt();
    const miss = await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt));
    const missRecord = await operationOf(up.gw, miss.headers.get('x-request-id') ?? '');
    assert.equal(missRecord.cacheHit, false);
    assert.ok(missRecord.costCents > 0, 'the miss was billed');

    const hit = await post(up.gw, up.key.key, '/chat/completions', chatBody(prompt));
    assert.equal(hit.headers.get('x-gateway-cache'), 'hit');
    const hitRecord = await operationOf(up.gw, hit.headers.get('x-request-id') ?? '');
    assert.equal(hitRecord.status, 'success');
    assert.equal(hitRecord.cacheHit, true);
    assert.equal(hitRecord.costCents, 0);
    assert.equal(hitRecord.inputTokens, 0);
    assert.equal(hitRecord.deploymentId, null);
    assert.deepEqual(hitRecord.attempts, []);
    // The key's spend (settled in batches) comes to the cost of its records, the hit's zero included.
    await eventually(async () => {
      const spend = (await admin<{ spendCents: number }>(up.gw, 'GET', `/keys/${up.key.id}`)).spendCents;
      const usage = await admin<{ data: { group: string | null; costCents: number }[] }>(
        up.gw,
        'GET',
        '/usage?groupBy=key',
      );
      const recorded = usage.data.find((row) => row.group === up.key.id)?.costCents ?? 0;
      assert.ok(spend > 0 && Math.abs(spend - recorded) < 1e-6, `spend ${spend}, recorded ${recorded}`);
    });
  });

  it("answers a cached body only to a call the key's limits admit", async () => {
    const limited = await admin<{ key: string }>(up.gw, 'POST', '/keys', {
      name: 'cache-rpm-1',
      allowedModels: ['*'],
      rpmLimit: 1,
    });
    const body = chatBody(freshPrompt());
    const first = await post(up.gw, limited.key, '/chat/completions', body);
    assert.equal(first.headers.get('x-gateway-cache'), 'miss');
    const refused = await post(up.gw, limited.key, '/chat/completions', body);
    assert.equal(refused.status, 429, refused.text);
    assert.equal(
      refused.json().error && (refused.json().error as { code: string }).code,
      'rate_limit_exceeded',
    );
    assert.equal(refused.headers.get('x-gateway-cache'), null);
    const other = await post(up.gw, up.key.key, '/chat/completions', body);
    assert.equal(other.headers.get('x-gateway-cache'), 'hit', 'the entry is there for a key with room');
  });

  it('counts hits and misses in switchyard_requests_total', async () => {
    const metrics = await fetch(`${up.gw.url}/metrics`, {
      headers: { authorization: `Bearer ${up.gw.masterKey}` },
    });
    const text = await metrics.text();
    const count = (cache: string) =>
      text
        .split('\n')
        .filter(
          (line) =>
            line.startsWith('switchyard_requests_total{') && line.includes(`switchyard_cache="${cache}"`),
        )
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    assert.ok(count('hit') >= 5, `hits in:\n${text}`);
    assert.ok(count('miss') >= 5);
  });

  it('does not look up images (bypass)', async () => {
    const answer = await post(up.gw, up.key.key, '/images/generations', { model: 'image', prompt: 'a cat' });
    assert.equal(answer.headers.get('x-gateway-cache'), 'bypass');
  });
});

describe('response cache on the embedded default (PGlite, in-process store)', () => {
  let up: CachedGateway;
  before(async () => {
    up = await startCachedGateway({}, 'embedded');
  });
  after(() => up?.close());

  it('answers a repeated call from the cache', async () => {
    const body = chatBody(freshPrompt());
    assert.equal(
      (await post(up.gw, up.key.key, '/chat/completions', body)).headers.get('x-gateway-cache'),
      'miss',
    );
    const calls = up.upstreamCalls();
    assert.equal(
      (await post(up.gw, up.key.key, '/chat/completions', body)).headers.get('x-gateway-cache'),
      'hit',
    );
    assert.equal(up.upstreamCalls(), calls);
  });

  it('serves but does not store an answer larger than RESPONSE_CACHE_MAX_ENTRY_BYTES', async () => {
    const small = await startCachedGateway({ RESPONSE_CACHE_MAX_ENTRY_BYTES: '1024' }, 'embedded');
    try {
      // The fake echoes the prompt: a long prompt makes an answer over 1 KiB, a short one under.
      const large = chatBody(`${freshPrompt()} ${'word '.repeat(300)}`, { max_tokens: 1000 });
      const first = await post(small.gw, small.key.key, '/chat/completions', large);
      assert.equal(first.status, 200);
      assert.ok(Buffer.byteLength(first.text) > 1024, `answer of ${Buffer.byteLength(first.text)} bytes`);
      const again = await post(small.gw, small.key.key, '/chat/completions', large);
      assert.equal(again.headers.get('x-gateway-cache'), 'miss');
      const short = chatBody(freshPrompt());
      await post(small.gw, small.key.key, '/chat/completions', short);
      assert.equal(
        (await post(small.gw, small.key.key, '/chat/completions', short)).headers.get('x-gateway-cache'),
        'hit',
      );
    } finally {
      await small.close();
    }
  });

  it('forgets an entry after RESPONSE_CACHE_TTL_MS', async () => {
    const short = await startCachedGateway({ RESPONSE_CACHE_TTL_MS: '300' }, 'embedded');
    try {
      const body = chatBody(freshPrompt());
      await post(short.gw, short.key.key, '/chat/completions', body);
      assert.equal(
        (await post(short.gw, short.key.key, '/chat/completions', body)).headers.get('x-gateway-cache'),
        'hit',
      );
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(
        (await post(short.gw, short.key.key, '/chat/completions', body)).headers.get('x-gateway-cache'),
        'miss',
      );
    } finally {
      await short.close();
    }
  });
});

describe('response cache in variant A and when off', () => {
  it('variant A records a hit in request_logs.cache_hit', async () => {
    const up = await startCachedGateway({ GATEWAY_VARIANT: 'a' });
    try {
      const body = chatBody(freshPrompt());
      await post(up.gw, up.key.key, '/chat/completions', body);
      const hit = await post(up.gw, up.key.key, '/chat/completions', body);
      assert.equal(hit.headers.get('x-gateway-cache'), 'hit');
      const sql = connectSql(up.gw.database?.url ?? '', 1);
      try {
        await eventually(async () => {
          const rows =
            await sql`select cache_hit, cost_cents from request_logs where request_id = ${hit.headers.get('x-request-id')}`;
          assert.equal(rows.length, 1);
          assert.equal(rows[0].cache_hit, true);
          assert.equal(Number(rows[0].cost_cents), 0);
        });
      } finally {
        await sql.end();
      }
    } finally {
      await up.close();
    }
  });

  it('sends no x-gateway-cache header and always calls the upstream when RESPONSE_CACHE_TTL_MS is 0', async () => {
    const up = await startCachedGateway({ RESPONSE_CACHE_TTL_MS: '0' }, 'embedded');
    try {
      const body = chatBody(freshPrompt());
      await post(up.gw, up.key.key, '/chat/completions', body);
      const calls = up.upstreamCalls();
      const again = await post(up.gw, up.key.key, '/chat/completions', body);
      assert.equal(again.headers.get('x-gateway-cache'), null);
      assert.equal(up.upstreamCalls(), calls + 1);
    } finally {
      await up.close();
    }
  });
});

describe('response cache when Redis fails', () => {
  it('serves the call from upstream as a miss, says so once in the log, and hits again once Redis is back', async () => {
    const target = new URL(TEST_REDIS_URL);
    const proxy = await startTcpProxy({
      targetHost: target.hostname,
      targetPort: Number(target.port || 6379),
    });
    const up = await startCachedGateway({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
    try {
      const body = chatBody(freshPrompt());
      const call = () => post(up.gw, up.gw.masterKey, '/chat/completions', body);
      assert.equal((await call()).headers.get('x-gateway-cache'), 'miss');
      proxy.cut();
      try {
        for (let i = 0; i < 3; i += 1) {
          const answer = await call();
          assert.equal(answer.status, 200, answer.text);
          assert.equal(answer.headers.get('x-gateway-cache'), 'miss');
        }
      } finally {
        proxy.restore();
      }
      const warnings = up.gw.logs.filter((line) => line.includes('response cache: the cache store failed'));
      assert.equal(warnings.length, 1, 'one warning for the outage, not one per call');
      await waitUntil(
        async () => (await call()).headers.get('x-gateway-cache') === 'hit',
        'a hit again',
        15_000,
      );
      assert.ok(up.gw.logs.some((line) => line.includes('response cache: the cache store answers again')));
    } finally {
      await up.close();
      await proxy.close();
    }
  });
});
