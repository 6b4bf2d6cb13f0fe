/**
 * Claude on Bedrock through InvokeModel (issue 31): a Messages client's body reaches Claude as
 * sent (thinking with its exact budget, signed and redacted thinking sent back in a tool loop,
 * betas in the body, cache_control, stop sequences), and Claude's answer comes back as Claude
 * wrote it, JSON and streamed; Chat and Responses clients reach it through Chat -> Messages.
 * Other Bedrock models stay on Converse. Each test asserts what the fake Bedrock received.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { encodeExceptionMessage } from '../../src/providers/bedrock/event-stream-encoder.ts';
import { fakeThinkingBlock } from '../fakes/anthropic-fake.ts';
import {
  admin,
  anthropicClient,
  createDeployment,
  type Json,
  lastJson,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const TOOL = {
  name: 'get_weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
};

describe('Claude on Bedrock through InvokeModel', () => {
  let up: Upstreams;
  let anthropic: Anthropic;
  let openai: OpenAI;
  before(async () => {
    up = await startUpstreams();
    const bedrock = { baseUrl: up.bedrock.baseUrl, apiKey: up.bedrock.apiKey, provider: 'bedrock' };
    await createDeployment(up.gw, {
      ...bedrock,
      publicModel: 'bedrock-sonnet',
      upstreamModel: SONNET,
      providerOptions: { region: up.bedrock.region, betas: ['context-1m-2025-08-07'] },
    });
    await createDeployment(up.gw, {
      ...bedrock,
      publicModel: 'bedrock-nova',
      upstreamModel: 'amazon.nova-pro-v1:0',
      providerOptions: { region: up.bedrock.region },
    });
    await admin(up.gw, 'PUT', '/router-settings', {
      retries: { maxAttempts: 1, backoffMs: 0 },
      cooldown: { failureThreshold: 1000, windowMs: 1000, durationMs: 0 },
    });
    anthropic = anthropicClient(up.gw, up.key);
    openai = openaiClient(up.gw, up.key);
  });
  beforeEach(() => up.bedrock.reset());
  after(() => up?.close());

  it('thinking keeps its exact budget; the signed thinking comes back; betas go in the body', async () => {
    const message = await anthropic.beta.messages.create({
      model: 'bedrock-sonnet',
      max_tokens: 8_000,
      thinking: { type: 'enabled', budget_tokens: 5_000 },
      betas: ['interleaved-thinking-2025-05-14'],
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hello there' }],
    });
    const request = up.bedrock.lastRequest;
    assert.equal(request?.operation, 'invoke');
    assert.equal(request?.modelId, SONNET);
    const sent = request?.body as Json;
    assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 5_000 });
    assert.deepEqual(sent.anthropic_beta, ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14']);
    assert.deepEqual((sent.system as Json[])[0].cache_control, { type: 'ephemeral' });
    assert.equal(sent.anthropic_version, 'bedrock-2023-05-31');
    assert.equal('model' in sent, false);
    const thinking = message.content[0];
    assert.equal(thinking.type, 'thinking');
    assert.equal(thinking.type === 'thinking' && thinking.signature, fakeThinkingBlock(1).signature);
    assert.equal(message.model, 'bedrock-sonnet');
  });

  it('a tool loop sends the signed and redacted thinking back to Claude as the client kept it', async () => {
    const history: Anthropic.MessageParam[] = [
      { role: 'user', content: 'weather tool please' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should call it.', signature: 'c2lnLTE=' },
          { type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' }] },
    ];
    const message = await anthropic.messages.create({
      model: 'bedrock-sonnet',
      max_tokens: 4_000,
      thinking: { type: 'enabled', budget_tokens: 1_024 },
      tools: [TOOL],
      messages: history,
    });
    assert.deepEqual((lastJson(up.bedrock).messages as Json[])[1], history[1]);
    assert.equal(message.content.at(-1)?.type, 'text');
  });

  it('a stop sequence comes back with the sequence matched', async () => {
    const message = await anthropic.messages.create({
      model: 'bedrock-sonnet',
      max_tokens: 100,
      stop_sequences: ['three'],
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, 'three');
    assert.deepEqual(lastJson(up.bedrock).stop_sequences, ['three']);
  });

  it('streams Claude’s events from the event-stream chunks, thinking and usage included', async () => {
    const stream = anthropic.messages.stream({
      model: 'bedrock-sonnet',
      max_tokens: 4_000,
      thinking: { type: 'enabled', budget_tokens: 2_000 },
      messages: [{ role: 'user', content: 'tell me' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const final = await stream.finalMessage();
    assert.equal(up.bedrock.lastRequest?.operation, 'invoke-with-response-stream');
    assert.equal(types[0], 'message_start');
    assert.equal(types.at(-1), 'message_stop');
    assert.deepEqual(
      final.content.map((block) => block.type),
      ['thinking', 'text'],
    );
    assert.ok(final.usage.input_tokens > 0 && final.usage.output_tokens > 0);
  });

  it('a Chat client reaches Claude through Chat -> Messages -> InvokeModel', async () => {
    const completion = await openai.chat.completions.create({
      model: 'bedrock-sonnet',
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    assert.equal(up.bedrock.lastRequest?.operation, 'invoke');
    const sent = lastJson(up.bedrock);
    assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 1_024 });
    assert.equal(completion.choices[0].message.content, 'echo: hello there');
  });

  it("a Chat client's temperature is held to Claude's range, as on Anthropic", async () => {
    const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
      openai.chat.completions.create({
        model: 'bedrock-sonnet',
        temperature: 1.5,
        messages: [{ role: 'user', content: 'hello there' }],
      }),
    );
    assert.equal(error.status, 400);
    assert.equal(error.param, 'temperature');
    assert.equal(up.bedrock.requests.length, 0);
  });

  it('a Responses client (Codex) reaches Claude too', async () => {
    const response = await openai.responses.create({ model: 'bedrock-sonnet', input: 'hello there' });
    assert.equal(up.bedrock.lastRequest?.operation, 'invoke');
    assert.equal(response.output_text, 'echo: hello there');
  });

  it('other Bedrock models stay on Converse', async () => {
    await anthropic.messages.create({
      model: 'bedrock-nova',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hello there' }],
    });
    assert.equal(up.bedrock.lastRequest?.operation, 'converse');
  });

  it('a throttled InvokeModel is a 429; an exception mid-stream ends the stream with an error event', async () => {
    up.bedrock.enqueue({
      status: 429,
      body: { message: 'Too many requests, please wait before trying again.' },
      headers: {
        'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
      },
    });
    const throttled = await rejection<InstanceType<typeof Anthropic.APIError>>(
      anthropic.messages.create({
        model: 'bedrock-sonnet',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    assert.equal(throttled.status, 429);
    up.bedrock.faultNextStream({
      afterEvents: 3,
      action: { raw: encodeExceptionMessage('modelStreamErrorException', 'The model stream failed.') },
    });
    const failed = await rejection(
      anthropic.messages
        .stream({ model: 'bedrock-sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'x y z' }] })
        .finalMessage(),
    );
    assert.ok(failed instanceof Error);
  });
});
