import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  client,
  closeTo,
  createDeployment,
  createKey,
  hi,
  recordedCostCents,
  spendCents,
  waitUntil,
} from './support.ts';

/** A chat answer carrying exactly this usage (the fake answers it as the next reply). */
function answerWithUsage(prompt: number, completion: number, cached: number) {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-cost',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'upstream',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: { cached_tokens: cached },
      },
    },
  };
}

describe('cost per call', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
  });

  /** Makes one call answered with `usage` on `publicModel`; returns the key's spend once written. */
  async function costOf(publicModel: string, usage: [number, number, number]): Promise<number> {
    const key = await createKey(gw);
    fake.enqueue(answerWithUsage(...usage));
    await client(gw, key.key).chat.completions.create(hi(publicModel));
    await waitUntil(async () => (await spendCents(gw.database?.url ?? '', key.id)) > 0, 'spend written');
    return spendCents(gw.database?.url ?? '', key.id);
  }

  it("prices a call with the deployment's override, cached input tokens at the cached price", async () => {
    await createDeployment(gw, {
      publicModel: 'override',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: fake.baseUrl,
      pricing: { inputCentsPerMTok: 300, outputCentsPerMTok: 1_200, cachedInputCentsPerMTok: 150 },
    });
    // 600 uncached at 300, 400 cached at 150, 500 out at 1200, per million tokens.
    closeTo(await costOf('override', [1_000, 500, 400]), (600 * 300 + 400 * 150 + 500 * 1_200) / 1e6);
  });

  it("prices a call with the catalog's price when the deployment has no override", async () => {
    // OpenAI's published gpt-4o price: $2.50 input, $1.25 cached input, $10 output per million tokens.
    await createDeployment(gw, { publicModel: 'catalog', upstreamModel: 'gpt-4o', baseUrl: fake.baseUrl });
    closeTo(
      await costOf('catalog', [10_000, 2_000, 4_000]),
      (6_000 * 250 + 4_000 * 125 + 2_000 * 1_000) / 1e6,
    );
  });

  it('prices cached input at the input price when the override has no cached price', async () => {
    await createDeployment(gw, {
      publicModel: 'override-plain',
      baseUrl: fake.baseUrl,
      pricing: { inputCentsPerMTok: 300, outputCentsPerMTok: 1_200 },
    });
    closeTo(await costOf('override-plain', [1_000, 500, 400]), (1_000 * 300 + 500 * 1_200) / 1e6);
  });

  it('records a model without pricing at zero cost and says so once per model', async () => {
    await createDeployment(gw, {
      publicModel: 'unpriced',
      upstreamModel: 'sy-unpriced-model',
      baseUrl: fake.baseUrl,
    });
    const key = await createKey(gw);
    const openai = client(gw, key.key);
    for (let i = 0; i < 3; i++) {
      const answer = await openai.chat.completions.create(hi('unpriced'));
      assert.ok((answer.usage?.total_tokens ?? 0) > 0, 'the upstream did report usage');
    }
    // A priced call after them: once its cost is in the database, theirs would be too.
    await createDeployment(gw, {
      publicModel: 'marker',
      baseUrl: fake.baseUrl,
      pricing: { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 },
    });
    const marker = await openai.chat.completions.create(hi('marker'));
    const markerCents = marker.usage?.total_tokens ?? 0;
    await waitUntil(
      async () => (await spendCents(gw.database?.url ?? '', key.id)) > 0,
      'marker spend written',
    );
    assert.equal(await spendCents(gw.database?.url ?? '', key.id), markerCents, 'the unpriced calls cost 0');
    const notices = gw.logs.filter(
      (line) => line.includes('sy-unpriced-model') && line.includes('zero cost'),
    );
    assert.equal(notices.length, 1, notices.join(''));
  });

  // Issue 19: usage is not trusted blindly, and costs are exact decimals.
  it('stores a cost as the exact decimal, not the float sum (0.1 + 0.2 is 0.3, not 0.30000000000000004)', async () => {
    await createDeployment(gw, {
      publicModel: 'fractional',
      baseUrl: fake.baseUrl,
      pricing: { inputCentsPerMTok: 0.1, outputCentsPerMTok: 0.2 },
    });
    const cents = await costOf('fractional', [1, 1, 0]);
    assert.equal(cents, 0.0000003, 'spend_cents');
    const key = await createKey(gw);
    fake.enqueue(answerWithUsage(1, 1, 0));
    await client(gw, key.key).chat.completions.create(hi('fractional'));
    await waitUntil(
      async () => (await recordedCostCents(gw.database?.url ?? '', key.id)).calls === 1,
      'record written',
    );
    assert.equal((await recordedCostCents(gw.database?.url ?? '', key.id)).cents, 0.0000003, 'cost_cents');
  });

  it("clamps negative and absurd upstream token counts to the model's window plus output limit, and logs it", async () => {
    await createDeployment(gw, {
      publicModel: 'absurd',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: fake.baseUrl,
      pricing: { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 },
    });
    // gpt-4o-mini: a 128,000-token window and 16,384 tokens of output at most, per the catalog.
    const cents = await costOf('absurd', [1e15, -5, 0]);
    assert.equal(cents, 128_000 + 16_384, 'a cent a token, for the bound and no negative output');
    assert.ok(
      gw.logs.some((line) => line.includes('clamped') && line.includes('inputTokens')),
      'the clamp is logged',
    );
  });

  it('refuses a pricing override that is not a finite, bounded number with a 400 naming the field', async () => {
    for (const price of [1e300, 1e9, -1, '12']) {
      const response = await fetch(`${gw.url}/admin/deployments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.masterKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          publicModel: 'bad-price',
          provider: 'openai',
          upstreamModel: 'gpt-4o-mini',
          baseUrl: fake.baseUrl,
          apiKey: 'sk-upstream-test',
          pricing: { inputCentsPerMTok: 1, outputCentsPerMTok: price },
        }),
      });
      const body = (await response.json()) as { error: { code: string; param: string } };
      assert.equal(response.status, 400, `price ${price}`);
      assert.equal(body.error.code, 'invalid_request');
      assert.equal(body.error.param, 'pricing.outputCentsPerMTok');
    }
  });
});
