import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { openaiClient, startUpstreams, type Upstreams } from './support.ts';

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** Every public model of a chat-capable upstream format, with the fake that serves it. */
const MODELS = ['gpt', 'claude', 'gemini', 'nova'] as const;

describe('POST /v1/chat/completions with the official openai client', () => {
  let up: Upstreams;
  let client: OpenAI;
  before(async () => {
    up = await startUpstreams();
    client = openaiClient(up.gw, up.key);
  });
  after(() => up?.close());

  for (const model of MODELS) {
    it(`answers a plain call through ${model}, naming the public model`, async () => {
      const completion = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hello there' },
        ],
        max_tokens: 50,
      });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.model, model);
      assert.equal(completion.choices[0].message.role, 'assistant');
      assert.equal(completion.choices[0].message.content, 'echo: hello there');
      assert.equal(completion.choices[0].finish_reason, 'stop');
      assert.ok((completion.usage?.prompt_tokens ?? 0) > 0);
    });

    it(`streams through ${model}, every chunk naming the public model`, async () => {
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'stream me please' }],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 50,
      });
      let text = '';
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        assert.equal(chunk.object, 'chat.completion.chunk');
        assert.equal(chunk.model, model);
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        usage = chunk.usage ?? usage;
      }
      assert.equal(text, 'echo: stream me please');
      assert.equal(finish, 'stop');
      assert.ok((usage?.completion_tokens ?? 0) > 0);
    });

    it(`calls a tool through ${model} and takes its result`, async () => {
      const first = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'use the tool for Paris' }],
        tools: [WEATHER_TOOL],
        max_tokens: 50,
      });
      const choice = first.choices[0];
      assert.equal(choice.finish_reason, 'tool_calls');
      const call = choice.message.tool_calls?.[0];
      assert.ok(call !== undefined && call.type === 'function');
      assert.equal(call.function.name, 'get_weather');
      assert.deepEqual(JSON.parse(call.function.arguments), { echo: 'use the tool for Paris' });

      const second = await client.chat.completions.create({
        model,
        messages: [
          { role: 'user', content: 'use the tool for Paris' },
          choice.message,
          { role: 'tool', tool_call_id: call.id, content: 'sunny' },
        ],
        tools: [WEATHER_TOOL],
        max_tokens: 50,
      });
      // The gemini and bedrock fakes echo the last user text, not tool results: check what they got.
      if (model === 'gpt' || model === 'claude') {
        assert.equal(second.choices[0].message.content, 'tool result: sunny');
      }
      assert.match(lastUpstreamBody(model), /sunny/);
    });
  }

  /** The raw body of the last request the upstream serving `model` received. */
  function lastUpstreamBody(model: (typeof MODELS)[number]): string {
    switch (model) {
      case 'gpt':
        return up.openai.lastRequest?.rawBody ?? '';
      case 'claude':
        return up.anthropic.lastRequest?.rawBody ?? '';
      case 'gemini':
        return up.gemini.requests.at(-1)?.rawBody ?? '';
      case 'nova':
        return up.bedrock.requests.at(-1)?.rawBody ?? '';
    }
  }

  it('streams a tool call through claude as chat chunks', async () => {
    const stream = client.chat.completions.stream({
      model: 'claude',
      messages: [{ role: 'user', content: 'use the tool for Oslo' }],
      tools: [WEATHER_TOOL],
      max_tokens: 50,
    });
    const completion = await stream.finalChatCompletion();
    const call = completion.choices[0].message.tool_calls?.[0];
    assert.ok(call !== undefined && call.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { echo: 'use the tool for Oslo' });
    assert.equal(completion.model, 'claude');
  });

  it('sends the upstream model and key upstream, never the public name or the virtual key', async () => {
    up.anthropic.reset();
    await client.chat.completions.create({
      model: 'claude',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 10,
    });
    const request = up.anthropic.lastRequest;
    assert.ok(request !== undefined);
    assert.equal((request.body as { model: string }).model, 'claude-sonnet-4-5');
    assert.equal(request.headers['x-api-key'], 'sk-ant-upstream-0001');
    assert.ok(!JSON.stringify(request.headers).includes(up.key));
  });
});
