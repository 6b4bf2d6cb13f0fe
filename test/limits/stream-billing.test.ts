import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { admin, createDeployment as createAnyDeployment } from '../helpers/admin-api.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import {
  client,
  createDeployment,
  createKey,
  failure,
  recordedCostCents,
  spendCents,
  waitUntil,
} from './support.ts';

/**
 * Issue 19: a call whose answer the client received is billed. A 1-cent key once received 30
 * complete streamed answers billed 0, because its client left after the content and before the
 * upstream's usage, which comes last. The gateway now reads the upstream on after the client left
 * (router setting `timeouts.drainAfterClientLeftMs`), and bills the streamed text when no usage comes.
 */

/** 1 cent a token, so a call's cost in cents is its token count. */
const CENT_A_TOKEN = { inputCentsPerMTok: 1_000_000, outputCentsPerMTok: 1_000_000 };
const PROMPT = 'one two three four five six';

describe('streamed calls whose client left after the content', () => {
  let openaiFake: OpenAIFake;
  let anthropicFake: AnthropicFake;
  let gw: TestGateway;
  before(async () => {
    openaiFake = await new OpenAIFake().start();
    anthropicFake = await new AnthropicFake().start();
    gw = await startTestGateway();
    await createDeployment(gw, { publicModel: 'chat', baseUrl: openaiFake.baseUrl, pricing: CENT_A_TOKEN });
    await createAnyDeployment(gw, {
      publicModel: 'claude',
      provider: 'anthropic',
      upstreamModel: 'claude-3-5-haiku-20241022',
      baseUrl: anthropicFake.url,
      apiKey: 'sk-ant-upstream-test',
      pricing: CENT_A_TOKEN,
    });
  });
  after(async () => {
    await gw?.close();
    await openaiFake?.close();
    await anthropicFake?.close();
  });

  /** Streams with the official client and aborts once the content is complete (finish_reason). */
  async function readContentThenLeave(key: string): Promise<string> {
    const stream = await client(gw, key).chat.completions.create({
      model: 'chat',
      messages: [{ role: 'user', content: PROMPT }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) {
        stream.controller.abort();
        break;
      }
    }
    return text;
  }

  it("bills the upstream's usage that arrived after the client left, and then refuses the spent key", async () => {
    const key = await createKey(gw, { budgetCents: 1 });
    openaiFake.eventDelayMs = 200;
    try {
      assert.equal(await readContentThenLeave(key.key), `echo: ${PROMPT}`);
    } finally {
      openaiFake.eventDelayMs = 0;
    }
    // The fake reports 6 prompt and 7 completion tokens in its last chunk.
    await waitUntil(async () => (await spendCents(gw.database?.url ?? '', key.id)) === 13, 'usage billed');
    await waitUntil(
      async () => (await recordedCostCents(gw.database?.url ?? '', key.id)).calls === 1,
      'record written',
    );
    assert.deepEqual(await recordedCostCents(gw.database?.url ?? '', key.id), { calls: 1, cents: 13 });
    const refused = await failure(readContentThenLeave(key.key));
    assert.equal(refused.code, 'budget_exceeded');
  });

  it('bills the tokens counted from the streamed text when the upstream ends without its usage', async () => {
    const key = await createKey(gw);
    // Role chunk, 7 content chunks, the finish chunk; then the connection ends without usage or [DONE].
    openaiFake.faultNextStream({ afterEvents: 9, action: 'end' });
    assert.equal(await readContentThenLeave(key.key), `echo: ${PROMPT}`);
    await waitUntil(
      async () => (await spendCents(gw.database?.url ?? '', key.id)) > 0,
      'streamed text billed',
    );
    const cents = await spendCents(gw.database?.url ?? '', key.id);
    // `echo: one two three four five six` is 8 o200k tokens; the input is estimated from the prompt.
    assert.ok(cents >= 8 + 6, `billed ${cents} cents`);
  });

  it('bills an Anthropic stream whose client left before message_delta carried the output tokens', async () => {
    const key = await createKey(gw);
    const anthropic = new Anthropic({ apiKey: key.key, baseURL: gw.url, maxRetries: 0 });
    anthropicFake.eventDelayMs = 200;
    try {
      const stream = await anthropic.messages.create({
        model: 'claude',
        max_tokens: 100,
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
      });
      let text = '';
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          text += event.delta.text;
        if (event.type === 'content_block_stop') {
          stream.controller.abort();
          break;
        }
      }
      assert.equal(text, `echo: ${PROMPT}`);
    } finally {
      anthropicFake.eventDelayMs = 0;
    }
    // message_start reported 6 input tokens; message_delta, after the client left, 7 output tokens.
    await waitUntil(async () => (await spendCents(gw.database?.url ?? '', key.id)) === 13, 'usage billed');
  });

  it("bills an answer an extension's afterUpstream refused: the upstream was paid (it was billed 0)", async () => {
    const key = await createKey(gw);
    await admin(gw, 'POST', '/extensions', {
      id: 'refuse-every-answer',
      models: ['chat'],
      limits: { timeoutMs: 2_000 },
      source: `export function afterUpstream() {
        return { reject: { status: 422, message: 'Not this answer.' } };
      }`,
    });
    try {
      const refused = await failure(
        client(gw, key.key).chat.completions.create({
          model: 'chat',
          messages: [{ role: 'user', content: PROMPT }],
        }),
      );
      assert.equal(refused.status, 422);
      // The fake reports 6 prompt and 7 completion tokens.
      await waitUntil(
        async () => (await spendCents(gw.database?.url ?? '', key.id)) === 13,
        'refused answer billed',
      );
    } finally {
      await admin(gw, 'DELETE', '/extensions/refuse-every-answer');
    }
  });
});
