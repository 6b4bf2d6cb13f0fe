import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { estimateInputTokens } from '../../src/formats/estimate-tokens.ts';
import { SLICE_CHARS } from '../../src/formats/token-counter.ts';
import { OpenAIFake, openAIError } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  client,
  createDeployment,
  createKey,
  deletePrefixKeys,
  failure,
  hi,
  sharedEnv,
  spendCents,
  tokensUsed,
  waitUntil,
} from './support.ts';

const RESET = /^(\d+ms|\d+(\.\d+)?s|\d+m\d+(\.\d+)?s)$/;

/** The reservation of one `hi` call (input estimate + max_tokens), read off a fresh TPM window. */
async function reservationOfHi(gw: TestGateway): Promise<number> {
  const probe = await createKey(gw, { tpmLimit: 1_000_000 });
  const { response } = await client(gw, probe.key).chat.completions.create(hi('chat')).withResponse();
  return 1_000_000 - Number(response.headers.get('x-ratelimit-remaining-tokens'));
}

describe('RPM and TPM limits through HTTP', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await createDeployment(gw, { publicModel: 'chat', baseUrl: fake.baseUrl });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  it('passes exactly rpmLimit calls, counting the headers down, then answers 429 with Retry-After', async () => {
    const key = await createKey(gw, { rpmLimit: 3 });
    const openai = client(gw, key.key);
    for (let n = 1; n <= 3; n++) {
      const { response } = await openai.chat.completions.create(hi('chat')).withResponse();
      assert.equal(response.headers.get('x-ratelimit-limit-requests'), '3');
      assert.equal(response.headers.get('x-ratelimit-remaining-requests'), String(3 - n));
      assert.match(response.headers.get('x-ratelimit-reset-requests') ?? '', RESET);
    }
    const refused = await failure(openai.chat.completions.create(hi('chat')));
    assert.equal(refused.status, 429);
    assert.equal(refused.code, 'rate_limit_exceeded');
    assert.equal(refused.type, 'rate_limit_error');
    const retryAfter = Number(refused.headers?.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(refused.headers?.get('x-ratelimit-remaining-requests'), '0');
    assert.equal(refused.headers?.get('x-ratelimit-limit-requests'), '3');
    assert.match(refused.headers?.get('x-ratelimit-reset-requests') ?? '', RESET);
  });

  it('carries all six headers with true values when the key has both limits', async () => {
    const reservation = await reservationOfHi(gw);
    const key = await createKey(gw, { rpmLimit: 10, tpmLimit: 10_000 });
    const openai = client(gw, key.key);
    const first = await openai.chat.completions.create(hi('chat')).withResponse();
    const headers = first.response.headers;
    assert.equal(headers.get('x-ratelimit-limit-requests'), '10');
    assert.equal(headers.get('x-ratelimit-remaining-requests'), '9');
    assert.equal(headers.get('x-ratelimit-limit-tokens'), '10000');
    assert.equal(headers.get('x-ratelimit-remaining-tokens'), String(10_000 - reservation));
    assert.match(headers.get('x-ratelimit-reset-requests') ?? '', RESET);
    assert.match(headers.get('x-ratelimit-reset-tokens') ?? '', RESET);
    // The fake used 1 prompt + 2 completion tokens: the reservation became 3.
    const usage = first.data.usage;
    assert.equal((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0), 3);
    await waitUntil(
      async () => (await tokensUsed(gw.gateway.runtime.cache, key.id, 10_000)) === 3,
      'reconciled',
    );
    const second = await openai.chat.completions.create(hi('chat')).withResponse();
    assert.equal(second.response.headers.get('x-ratelimit-remaining-requests'), '8');
    assert.equal(
      second.response.headers.get('x-ratelimit-remaining-tokens'),
      String(10_000 - 3 - reservation),
    );
  });

  it('reserves a long prompt at its estimate, counted in slices between turns of the event loop', async () => {
    const body = {
      ...hi('chat', 16),
      messages: [{ role: 'user' as const, content: 'Count me in slices. '.repeat(3000) }],
    };
    const key = await createKey(gw, { tpmLimit: 1_000_000 });
    const { response } = await client(gw, key.key).chat.completions.create(body).withResponse();
    const reserved = estimateInputTokens('chat.completions', body) + 16;
    assert.equal(response.headers.get('x-ratelimit-remaining-tokens'), String(1_000_000 - reserved));
  });

  it('reserves every prompt at the count of its own text when texts repeat (counts remembered by text)', async () => {
    const reserved = async (content: string) => {
      const key = await createKey(gw, { tpmLimit: 1_000_000 });
      const body = { ...hi('chat', 16), messages: [{ role: 'user' as const, content }] };
      const { response } = await client(gw, key.key).chat.completions.create(body).withResponse();
      return 1_000_000 - Number(response.headers.get('x-ratelimit-remaining-tokens'));
    };
    // The tokenizer's own count, slice by slice as the estimate cuts them (no run long enough to be cut).
    const tokensOf = (text: string) => {
      let tokens = 0;
      for (let at = 0; at < text.length; at += SLICE_CHARS)
        tokens += countTokens(text.slice(at, at + SLICE_CHARS));
      return tokens;
    };
    const overhead = (await reserved('x')) - tokensOf('x');
    // Texts of one length with different counts (one of them a character away from another), and
    // two long ones whose first slices are the same.
    const words = 'alpha beta '.repeat(40);
    const symbols = 'a1;b2;c3! '.repeat(44);
    const edited = `a1${words.slice(2)}`;
    const shared = 'Count me in slices. '.repeat(500);
    const texts = [
      words,
      symbols,
      edited,
      words,
      edited,
      symbols,
      `${shared}one end`,
      `${shared}another, longer end`,
      `${shared}one end`,
    ];
    assert.equal(words.length, symbols.length);
    assert.equal(words.length, edited.length);
    assert.notEqual(tokensOf(words), tokensOf(symbols));
    assert.notEqual(tokensOf(words), tokensOf(edited));
    for (const text of texts) assert.equal((await reserved(text)) - overhead, tokensOf(text));
  });

  it('passes exactly the calls the TPM limit holds, reconciled to actual usage, then answers 429', async () => {
    const reservation = await reservationOfHi(gw);
    // Each call uses 3 tokens once reconciled; the N-th call needs 3 (N - 1) + its reservation.
    const calls = 4;
    const limit = 3 * (calls - 1) + reservation;
    const key = await createKey(gw, { tpmLimit: limit });
    const openai = client(gw, key.key);
    for (let n = 1; n <= calls; n++) {
      const { response } = await openai.chat.completions.create(hi('chat')).withResponse();
      assert.equal(
        response.headers.get('x-ratelimit-remaining-tokens'),
        String(limit - 3 * (n - 1) - reservation),
      );
      await waitUntil(
        async () => (await tokensUsed(gw.gateway.runtime.cache, key.id, limit)) === 3 * n,
        'reconciled',
      );
    }
    const refused = await failure(openai.chat.completions.create(hi('chat')));
    assert.equal(refused.status, 429);
    assert.equal(refused.code, 'rate_limit_exceeded');
    assert.ok(Number(refused.headers?.get('retry-after')) >= 1);
    assert.equal(refused.headers?.get('x-ratelimit-remaining-tokens'), String(limit - 3 * calls));
    assert.equal(refused.headers?.get('x-ratelimit-limit-tokens'), String(limit));
  });

  it('reconciles a stream from its final usage', async () => {
    const key = await createKey(gw, { tpmLimit: 100_000 });
    const stream = await client(gw, key.key).chat.completions.create({ ...hi('chat', 1), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(text, 'echo:');
    // 1 prompt word + 1 completion word (cut at max_tokens).
    await waitUntil(
      async () => (await tokensUsed(gw.gateway.runtime.cache, key.id, 100_000)) === 2,
      'reconciled',
    );
  });

  it('releases the TPM reservation of a call the upstream failed', async () => {
    const key = await createKey(gw, { tpmLimit: 100_000 });
    fake.failNext(5, { status: 500, body: openAIError('boom', null, null, 'server_error') });
    try {
      const error = await failure(client(gw, key.key).chat.completions.create(hi('chat')));
      assert.ok(error.status !== undefined && error.status >= 500);
      assert.ok(error.headers?.get('x-ratelimit-remaining-tokens'), 'error answers carry the headers too');
    } finally {
      fake.reset();
    }
    await waitUntil(
      async () => (await tokensUsed(gw.gateway.runtime.cache, key.id, 100_000)) === 0,
      'released',
    );
  });

  it("maps an upstream 429 to rate_limit_exceeded with the upstream's Retry-After", async () => {
    const key = await createKey(gw);
    fake.failNext(5, {
      status: 429,
      body: openAIError('Rate limit reached for requests', null, 'rate_limit_exceeded', 'requests'),
      headers: { 'retry-after': '7' },
    });
    try {
      const error = await failure(client(gw, key.key).chat.completions.create(hi('chat')));
      assert.equal(error.status, 429);
      assert.equal(error.code, 'rate_limit_exceeded');
      assert.equal(error.headers?.get('retry-after'), '7');
      assert.doesNotMatch(error.message, /Rate limit reached for requests/, 'no provider wording');
    } finally {
      fake.reset();
    }
  });
});

describe('limits shared by replicas and rebuilt from nothing', () => {
  let fake: OpenAIFake;
  let first: TestGateway;
  let second: TestGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    first = await startTestGateway();
    await createDeployment(first, {
      publicModel: 'chat',
      baseUrl: fake.baseUrl,
      pricing: { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 },
    });
    second = await startTestGateway({ database: first.database, env: sharedEnv(first) });
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await fake?.close();
  });

  it('two gateways on one Redis enforce one RPM limit', async () => {
    const key = await createKey(first, { rpmLimit: 4 });
    const clients = [client(first, key.key), client(second, key.key)];
    for (let n = 0; n < 4; n++) {
      const { response } = await clients[n % 2].chat.completions.create(hi('chat')).withResponse();
      assert.equal(response.headers.get('x-ratelimit-remaining-requests'), String(3 - n));
    }
    for (const openai of clients) {
      const refused = await failure(openai.chat.completions.create(hi('chat')));
      assert.equal(refused.code, 'rate_limit_exceeded');
    }
  });

  it('rebuilds the counters after the Redis keys are gone: windows start afresh, the budget from spend_cents', async () => {
    // 1 cent a token: a `hi` call costs 3 cents and reserves its estimate.
    const key = await createKey(first, { rpmLimit: 100, budgetCents: 20 });
    const openai = client(first, key.key);
    let calls = 0;
    for (;;) {
      const error = await openai.chat.completions.create(hi('chat')).then(
        () => null,
        (e: unknown) => e,
      );
      if (error !== null) {
        assert.ok(
          error instanceof Error && (error as { code?: string }).code === 'budget_exceeded',
          String(error),
        );
        break;
      }
      calls++;
      assert.ok(calls < 20, 'the budget stops the key');
    }
    await waitUntil(
      async () => (await spendCents(first.database?.url ?? '', key.id)) === 3 * calls,
      'spend written',
    );

    assert.ok((await deletePrefixKeys(first.env.REDIS_KEY_PREFIX)) > 0);
    const again = await failure(client(second, key.key).chat.completions.create(hi('chat')));
    assert.equal(again.code, 'budget_exceeded', 'the counter came back from spend_cents, not from zero');
    assert.equal(
      again.headers?.get('x-ratelimit-remaining-requests'),
      '100',
      'the RPM window started afresh',
    );
  });
});
