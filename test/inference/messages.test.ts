import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicClient, post, rejection, startUpstreams, type Upstreams } from './support.ts';

const WEATHER_TOOL: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Public models of an Anthropic-format upstream (native) and OpenAI-format ones (translated). */
const MODELS = ['claude', 'gpt', 'gemini'] as const;

describe('POST /v1/messages with the official @anthropic-ai/sdk client', () => {
  let up: Upstreams;
  let client: Anthropic;
  before(async () => {
    up = await startUpstreams();
    client = anthropicClient(up.gw, up.key);
  });
  after(() => up?.close());

  for (const model of MODELS) {
    it(`answers a plain call through ${model}, naming the public model`, async () => {
      const message = await client.messages.create({
        model,
        max_tokens: 50,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hello there' }],
      });
      assert.equal(message.type, 'message');
      assert.equal(message.role, 'assistant');
      assert.equal(message.model, model);
      assert.deepEqual(
        message.content.map((block) => (block.type === 'text' ? block.text : block.type)),
        ['echo: hello there'],
      );
      assert.equal(message.stop_reason, 'end_turn');
      assert.ok(message.usage.input_tokens > 0);
    });

    it(`streams through ${model}`, async () => {
      const stream = client.messages.stream({
        model,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'stream me please' }],
      });
      let text = '';
      let startedModel = '';
      for await (const event of stream) {
        if (event.type === 'message_start') startedModel = event.message.model;
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
          text += event.delta.text;
      }
      const message = await stream.finalMessage();
      assert.equal(startedModel, model);
      assert.equal(text, 'echo: stream me please');
      assert.equal(message.stop_reason, 'end_turn');
    });

    it(`uses a tool through ${model}, plain and streamed`, async () => {
      const request = {
        model,
        max_tokens: 50,
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user' as const, content: 'use the tool for Rome' }],
      };
      const plain = await client.messages.create(request);
      const streamed = await client.messages.stream(request).finalMessage();
      for (const message of [plain, streamed]) {
        assert.equal(message.stop_reason, 'tool_use');
        const block = message.content.find((b) => b.type === 'tool_use');
        assert.ok(block !== undefined && block.type === 'tool_use');
        assert.equal(block.name, 'get_weather');
        assert.deepEqual(block.input, { echo: 'use the tool for Rome' });
      }
      const block = plain.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
      const answer = await client.messages.create({
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: plain.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: block.id, content: 'rainy' }] },
        ],
      });
      if (model !== 'gemini') {
        assert.deepEqual(
          answer.content.map((b) => (b.type === 'text' ? b.text : b.type)),
          ['tool result: rainy'],
        );
      }
      assert.equal(answer.model, model);
    });
  }

  it('answers errors in the Anthropic shape', async () => {
    const error = await rejection<InstanceType<typeof Anthropic.APIError>>(
      client.messages.create({ model: 'nope', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.equal(error.status, 404);
    const raw = await post(up.gw, up.key, '/messages', {
      model: 'claude',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(raw.status, 400);
    const body = raw.json() as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /max_tokens/);
  });
});
