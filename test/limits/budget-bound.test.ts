import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { after, before, describe, it } from 'node:test';
import { estimateInputTokens } from '../../src/formats/estimate-tokens.ts';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { GeminiFake } from '../fakes/gemini-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { createDeployment } from '../helpers/admin-api.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { client, createKey } from './support.ts';

/**
 * Issue 30 findings 1 and 8: a budget's worst case must bound what the provider bills, not the
 * gateway's own token count. The upstreams here bill the input above the gateway's plain estimate
 * (their own tokenizer and framing, as each provider family does), and under 100 concurrent calls
 * the key must still end at most one call's worst case over its budget. An upstream billing past
 * the bound it was given is billed in full and counted; an answer without usage is billed from
 * what was counted.
 */

/** 1 cent a token, so cents and tokens read alike. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };
const VOCABULARY = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', 'ran', 'far', 'away'];
const PROMPT = Array.from({ length: 2_000 }, (_, i) => VOCABULARY[i % VOCABULARY.length]).join(' ');
const MAX_TOKENS = 10;
const CONCURRENT = 100;
/** A budget of about this many calls. */
const CALLS_IN_BUDGET = 10;

function body(model: string) {
  return { model, messages: [{ role: 'user' as const, content: PROMPT }], max_tokens: MAX_TOKENS };
}

/** The gateway's plain estimate of the call's input (o200k_base and OpenAI's message framing). */
const ESTIMATE = estimateInputTokens('chat.completions', body('any'));

/** What the tests drive of a fake, whatever its provider. */
type Upstream = Pick<OpenAIFake, 'reset' | 'enqueue' | 'close' | 'latencyMs' | 'url'>;

interface Family {
  name: string;
  publicModel: string;
  /** The provider's count of the input over the gateway's estimate (its tokenizer and framing). */
  gap: number;
  fake: () => Upstream;
  /** The upstream's answer in its own wire format, billing `input` and `output` tokens. */
  reply: (input: number, output: number) => unknown;
}

function openaiReply(input: number, output: number) {
  return {
    id: 'chatcmpl-bound',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'upstream',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null },
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  };
}

function anthropicReply(input: number, output: number) {
  return {
    id: 'msg_bound',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: input, output_tokens: output },
  };
}

function geminiReply(input: number, output: number) {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output },
    modelVersion: 'gemini-2.5-flash',
  };
}

describe('a budget worst case that bounds the bill (Redis and Postgres)', () => {
  let gw: TestGateway;
  const fakes: Record<string, Upstream> = {};

  const families: Family[] = [
    // cl100k_base models and OpenAI's tool rendering count a few percent above o200k_base.
    { name: 'openai', publicModel: 'gpt', gap: 1.08, fake: () => fakes.openai, reply: openaiReply },
    // Claude Opus 4.7's tokenizer, measured up to 1.47x its predecessor on English prose.
    {
      name: 'anthropic',
      publicModel: 'claude',
      gap: 1.45,
      fake: () => fakes.anthropic,
      reply: anthropicReply,
    },
    { name: 'gemini', publicModel: 'gemini', gap: 1.25, fake: () => fakes.gemini, reply: geminiReply },
    { name: 'open-weights', publicModel: 'llama', gap: 1.4, fake: () => fakes.openai, reply: openaiReply },
  ];

  before(async () => {
    fakes.openai = await new OpenAIFake().start();
    fakes.anthropic = await new AnthropicFake().start();
    const gemini = await GeminiFake.start();
    fakes.gemini = gemini;
    gw = await startTestGateway();
    const openaiUrl = (fakes.openai as OpenAIFake).baseUrl;
    const deployments = [
      { publicModel: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o-mini', baseUrl: openaiUrl },
      {
        publicModel: 'claude',
        provider: 'anthropic',
        upstreamModel: 'claude-sonnet-4-5',
        baseUrl: fakes.anthropic.url,
      },
      {
        publicModel: 'gemini',
        provider: 'gemini',
        upstreamModel: 'gemini-2.5-flash',
        baseUrl: gemini.baseUrl,
        apiKey: gemini.apiKey,
      },
      {
        publicModel: 'llama',
        provider: 'openai-compatible',
        upstreamModel: 'meta-llama/Llama-3.3-70B-Instruct',
        baseUrl: openaiUrl,
      },
    ];
    for (const deployment of deployments) {
      await createDeployment(gw, { apiKey: 'sk-upstream-test', pricing: CENT_A_TOKEN, ...deployment });
    }
  });

  after(async () => {
    await gw?.close();
    for (const fake of Object.values(fakes)) await fake.close();
  });

  for (const family of families) {
    it(`ends at most one worst case over when ${CONCURRENT} concurrent calls are billed ${family.gap}x the estimate (${family.name})`, async () => {
      const billedInput = Math.ceil(ESTIMATE * family.gap);
      const callCents = billedInput + MAX_TOKENS;
      const budget = CALLS_IN_BUDGET * callCents;
      const fake = family.fake();
      fake.reset();
      for (let i = 0; i < CONCURRENT; i++)
        fake.enqueue({ status: 200, body: family.reply(billedInput, MAX_TOKENS) });
      fake.latencyMs = 200;
      const key = await createKey(gw, { budgetCents: budget });
      const openai = client(gw, key.key);
      let served = 0;
      let worstCase = 0;
      try {
        const results = await Promise.allSettled(
          Array.from({ length: CONCURRENT }, () => openai.chat.completions.create(body(family.publicModel))),
        );
        for (const result of results) {
          if (result.status === 'fulfilled') {
            served++;
            continue;
          }
          const error = result.reason as { code?: string; message: string };
          assert.ok(['budget_reserved', 'budget_exceeded'].includes(error.code ?? ''), error.message);
          const stated = /could cost up to ([\d.]+) cents/.exec(error.message);
          assert.ok(stated, error.message);
          worstCase = Number(stated[1]);
        }
      } finally {
        fake.reset();
      }
      const spent = served * callCents;
      assert.ok(
        worstCase >= callCents,
        `the worst case ${worstCase} covers what one call is billed, ${callCents}`,
      );
      assert.ok(worstCase <= 2 * callCents, `the worst case ${worstCase} is a bound, not a refusal`);
      assert.ok(served >= CALLS_IN_BUDGET - 3, `${served} served`);
      assert.ok(
        spent <= budget + worstCase,
        `spent ${spent} of ${budget}: more than one worst case (${worstCase}) over`,
      );
    });
  }

  it('bills in full, and reports, an upstream that bills past the bound it was given', async () => {
    const seen: unknown[] = [];
    const listener = (event: unknown) => seen.push(event);
    diagnosticsChannel.subscribe('switchyard:budget:bound-exceeded', listener);
    try {
      const fake = fakes.openai;
      const key = await createKey(gw, { budgetCents: 1_000_000 });
      // 50 times the max_tokens the call asked for: an upstream ignoring the bound it was given.
      fake.enqueue({ status: 200, body: openaiReply(ESTIMATE, 50 * MAX_TOKENS) });
      await client(gw, key.key).chat.completions.create(body('gpt'));
      const info = await keyInfo(gw, key.key);
      assert.equal(info.spendCents, ESTIMATE + 50 * MAX_TOKENS, 'billed in full');
      assert.equal(seen.length, 1);
      assert.match(JSON.stringify(seen[0]), new RegExp(`"billedCents":${ESTIMATE + 50 * MAX_TOKENS}`));
      const metrics = await (
        await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.masterKey}` } })
      ).text();
      assert.match(metrics, /^switchyard_budget_bound_exceeded_total\{[^}]*\} 1$/m);
    } finally {
      diagnosticsChannel.unsubscribe('switchyard:budget:bound-exceeded', listener);
    }
  });

  it('bills an answer without usage from what was counted, not 0', async () => {
    const key = await createKey(gw, { budgetCents: 1_000_000 });
    const { usage: _dropped, ...answer } = openaiReply(0, 0);
    fakes.openai.enqueue({
      status: 200,
      body: {
        ...answer,
        choices: [{ ...answer.choices[0], message: { role: 'assistant', content: 'four words of answer' } }],
      },
    });
    await client(gw, key.key).chat.completions.create(body('gpt'));
    const info = await keyInfo(gw, key.key);
    assert.ok(
      info.spendCents >= ESTIMATE + 4,
      `billed ${info.spendCents}: the input estimate and the counted answer`,
    );
  });
});

async function keyInfo(gw: TestGateway, secret: string): Promise<{ spendCents: number }> {
  const res = await fetch(`${gw.url}/v1/key`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(res.status, 200);
  return (await res.json()) as { spendCents: number };
}
