import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { AnthropicFake } from '../fakes/anthropic-fake.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createDeployment, modelName, putRouterSettings } from './support.ts';

const PROMPT = 'one two three four five six seven eight';

describe('streams fail over only before their first byte', () => {
  let gw: TestGateway;
  let openaiFake: OpenAIFake;
  let anthropicFake: AnthropicFake;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let gpt: string;
  let claude: string;
  before(async () => {
    openaiFake = await new OpenAIFake().start();
    anthropicFake = await new AnthropicFake().start();
    gw = await startTestGateway();
    gpt = modelName('gpt');
    claude = modelName('claude');
    await createDeployment(gw, { publicModel: gpt, baseUrl: openaiFake.baseUrl });
    await createDeployment(gw, {
      publicModel: claude,
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      baseUrl: anthropicFake.url,
    });
    // Retries allowed: the tests show when they are (not) used.
    await putRouterSettings(gw, { retries: { maxAttempts: 3, backoffMs: 0 } });
    openai = new OpenAI({ apiKey: gw.masterKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: gw.masterKey, baseURL: gw.url, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await openaiFake.close();
    await anthropicFake.close();
  });
  beforeEach(() => {
    openaiFake.reset();
    anthropicFake.reset();
  });

  it('OpenAI format: a failure after the first byte ends the stream with an error event, never retried', async () => {
    // Spaced events: the first ones reach the client before the connection is reset.
    openaiFake.eventDelayMs = 30;
    openaiFake.faultNextStream({ afterEvents: 3, action: 'destroy' });
    const stream = await openai.chat.completions.create({
      model: gpt,
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    let text = '';
    await assert.rejects(
      async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      },
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError, String(error));
        assert.equal((error.error as { code?: string }).code, 'upstream_error');
        return true;
      },
    );
    assert.ok(text.length > 0 && text !== `echo: ${PROMPT}`, `received "${text}"`);
    assert.equal(openaiFake.requests.length, 1);
  });

  it('Anthropic format: a failure after the first byte ends the stream with an error event, never retried', async () => {
    anthropicFake.eventDelayMs = 30;
    anthropicFake.faultNextStream({ afterEvents: 4, action: 'destroy' });
    const stream = await anthropic.messages.create({
      model: claude,
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    const seen: string[] = [];
    await assert.rejects(
      async () => {
        for await (const event of stream) seen.push(event.type);
      },
      (error: unknown) => {
        assert.ok(error instanceof Anthropic.APIError, String(error));
        assert.equal((error.error as { error?: { type?: string } }).error?.type, 'api_error');
        return true;
      },
    );
    assert.ok(seen.includes('message_start'), seen.join(','));
    assert.ok(!seen.includes('message_stop'), seen.join(','));
    assert.equal(anthropicFake.requests.length, 1);
  });

  it('OpenAI format: a stream is handed over at its first event, even when the same upstream chunk holds more', async () => {
    const model = modelName('gpt-packed');
    await createDeployment(gw, { publicModel: model, baseUrl: openaiFake.baseUrl });
    const role = {
      id: 'chatcmpl-packed',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    };
    const failure = { error: { message: 'overloaded', type: 'server_error' } };
    // One write: the gateway reads both events in one chunk, as from a fast or buffering upstream.
    openaiFake.faultNextStream({
      afterEvents: 0,
      action: { raw: `data: ${JSON.stringify(role)}\n\ndata: ${JSON.stringify(failure)}\n\n` },
    });
    const stream = await openai.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    const roles: unknown[] = [];
    await assert.rejects(async () => {
      for await (const chunk of stream) roles.push(chunk.choices[0]?.delta?.role);
    }, OpenAI.APIError);
    assert.deepEqual(roles, ['assistant'], 'the first event reached the client, then the error');
    assert.equal(openaiFake.requests.length, 1, 'handed over, so never retried');
  });

  /** A whole OpenAI-format stream's text, and the attempts the gateway made for it. */
  async function streamedText(model: string): Promise<{ text: string; attempts: string | null }> {
    const { data: stream, response } = await openai.chat.completions
      .create({ model, stream: true, messages: [{ role: 'user', content: PROMPT }] })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    return { text, attempts: response.headers.get('x-switchyard-attempts') };
  }

  it('OpenAI format: an upstream that fails before its first event is retried, and the client sees a whole stream', async () => {
    openaiFake.faultNextStream({ afterEvents: 0, action: 'destroy' });
    assert.deepEqual(await streamedText(gpt), { text: `echo: ${PROMPT}`, attempts: '2' });
    assert.equal(openaiFake.requests.length, 2);
  });

  it('OpenAI format: a stream cut inside its first event is retried: half an event is no first byte', async () => {
    // A deployment of its own: the failures of the tests above could have put gpt's in cooldown.
    const model = modelName('gpt-cut');
    await createDeployment(gw, { publicModel: model, baseUrl: openaiFake.baseUrl });
    openaiFake.faultNextStream({ afterEvents: 0, action: { raw: 'data: {"id":"chatcmpl-cut","obj' } });
    assert.deepEqual(await streamedText(model), { text: `echo: ${PROMPT}`, attempts: '2' });
  });

  it('Anthropic format: a stream that ends cleanly before its first event is retried', async () => {
    anthropicFake.faultNextStream({ afterEvents: 0, action: 'end' });
    const stream = await anthropic.messages.create({
      model: claude,
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    let text = '';
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    }
    assert.equal(text, `echo: ${PROMPT}`);
    assert.equal(anthropicFake.requests.length, 2);
  });
});
