/**
 * Bedrock (Converse) fidelity through the official clients (issue 23): tool_choice none with tool
 * history, documents, image URLs, prompt caching (cachePoints and cache usage), Claude's thinking,
 * and JSON mode. Each test asserts what the fake Bedrock received.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { recordedJson } from '../fakes/recorded.ts';
import {
  admin,
  anthropicClient,
  createDeployment,
  lastJson,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** A finished weather turn: the call and its result. */
const WEATHER_HISTORY: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'user', content: 'weather in Paris?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'tooluse_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'tooluse_1', content: '18C' },
  { role: 'user', content: 'summarise in words' },
];

type Json = Record<string, unknown>;

describe('Bedrock through the official clients', () => {
  let up: Upstreams;
  let client: OpenAI;
  before(async () => {
    up = await startUpstreams();
    await createDeployment(up.gw, {
      publicModel: 'sonnet45',
      provider: 'bedrock',
      upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      baseUrl: up.bedrock.baseUrl,
      apiKey: up.bedrock.apiKey,
      // The Converse path for Claude; InvokeModel, the default, is bedrock-claude.test.ts's.
      providerOptions: { region: up.bedrock.region, claudeApi: 'converse' },
    });
    // Each injected failure is the call's answer: no retry, no cooldown.
    await admin(up.gw, 'PUT', '/router-settings', {
      retries: { maxAttempts: 1, backoffMs: 0 },
      cooldown: { failureThreshold: 1000, windowMs: 1000, durationMs: 0 },
    });
    client = openaiClient(up.gw, up.key);
  });
  after(() => up?.close());

  it('bedrock-malformed-tool-use.json: a 502 upstream_generation_failed, not a stop', async () => {
    up.bedrock.enqueueAnswer({
      status: 200,
      body: recordedJson('bedrock', 'bedrock-malformed-tool-use.json'),
    });
    const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
      client.chat.completions.create({ model: 'nova', messages: [{ role: 'user', content: 'write it' }] }),
    );
    assert.equal(error.status, 502);
    assert.equal(error.code, 'upstream_generation_failed');
  });

  it('bedrock-tool-choice-none-with-history: answers; the tools stay declared and Claude is told none', async () => {
    const completion = await client.chat.completions.create({
      model: 'nova',
      messages: WEATHER_HISTORY,
      tools: [WEATHER_TOOL],
      tool_choice: 'none',
    });
    assert.equal(completion.choices[0].message.content, 'echo: summarise in words');
    const sent = lastJson(up.bedrock) as { toolConfig: Json; additionalModelRequestFields: Json };
    assert.deepEqual(
      (sent.toolConfig.tools as Array<{ toolSpec: { name: string } }>).map((t) => t.toolSpec.name),
      ['get_weather'],
    );
    assert.equal(sent.toolConfig.toolChoice, undefined);
    assert.deepEqual(sent.additionalModelRequestFields, { tool_choice: { type: 'none' } });
  });

  it('a tool history without tools declares the called tools, as Converse requires', async () => {
    const completion = await client.chat.completions.create({ model: 'nova', messages: WEATHER_HISTORY });
    assert.equal(completion.choices[0].message.content, 'echo: summarise in words');
    const sent = lastJson(up.bedrock) as { toolConfig: { tools: Array<{ toolSpec: { name: string } }> } };
    assert.deepEqual(
      sent.toolConfig.tools.map((t) => t.toolSpec.name),
      ['get_weather'],
    );
  });

  it('a PDF file part is a Converse document block', async () => {
    const pdf = Buffer.from('%PDF-1.4 fake').toString('base64');
    await client.chat.completions.create({
      model: 'nova',
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'file',
              file: { file_data: `data:application/pdf;base64,${pdf}`, filename: 'invoice.pdf' },
            },
            { type: 'text', text: 'total?' },
          ],
        },
      ],
    });
    const sent = lastJson(up.bedrock) as { messages: Array<{ content: unknown[] }> };
    assert.deepEqual(sent.messages[0].content, [
      { document: { format: 'pdf', name: 'invoice', source: { bytes: pdf } } },
      { text: 'total?' },
    ]);
  });

  it('an image URL is a 400 naming the field and saying to send bytes; nothing reaches Bedrock', async () => {
    const before = up.bedrock.requests.length;
    const error = await rejection<InstanceType<typeof OpenAI.APIError>>(
      client.chat.completions.create({
        model: 'nova',
        messages: [
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'http://169.254.169.254/latest' } }],
          },
        ],
      }),
    );
    assert.equal(error.status, 400);
    assert.equal(error.param, 'messages[0].content[0].image_url.url');
    assert.match(error.message, /base64 data URL/);
    assert.match(error.message, /does not fetch/);
    assert.equal(up.bedrock.requests.length, before);
  });

  it('cache_control on chat parts becomes cachePoints; the second call reads the cache', async () => {
    const call = () =>
      client.chat.completions.create({
        model: 'nova',
        messages: [
          {
            role: 'system',
            content: [
              // The LiteLLM / OpenRouter convention: not in the openai types.
              {
                type: 'text',
                text: 'a long and stable system prompt',
                cache_control: { type: 'ephemeral' },
              } as never,
            ],
          },
          { role: 'user', content: 'hello cache' },
        ],
      });
    const first = await call();
    const sent = lastJson(up.bedrock) as { system: unknown[] };
    assert.deepEqual(sent.system, [
      { text: 'a long and stable system prompt' },
      { cachePoint: { type: 'default' } },
    ]);
    const second = await call();
    const details = (usage: OpenAI.CompletionUsage | undefined) =>
      usage?.prompt_tokens_details as { cached_tokens?: number; cache_write_tokens?: number } | undefined;
    assert.deepEqual(details(first.usage), { cached_tokens: 0, cache_write_tokens: 6 });
    assert.deepEqual(details(second.usage), { cached_tokens: 6, cache_write_tokens: 0 });
  });

  it('Messages -> Bedrock: cache_control on a system block reaches Converse as a cachePoint; cache usage comes back apart', async () => {
    const anthropic = anthropicClient(up.gw, up.key);
    const system = 'another long and stable system prompt';
    const call = () =>
      anthropic.messages.create({
        model: 'nova',
        max_tokens: 50,
        system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'hello cache' }],
      });
    const first = await call();
    const sent = lastJson(up.bedrock) as { system: unknown[] };
    assert.deepEqual(sent.system, [{ text: system }, { cachePoint: { type: 'default' } }]);
    const second = await call();
    // The fake writes the cached prefix on the first call and reads it on the second.
    assert.ok(first.usage.cache_creation_input_tokens, 'the first call reports its cache write');
    assert.equal(first.usage.cache_read_input_tokens, 0);
    assert.equal(second.usage.cache_creation_input_tokens, 0);
    assert.equal(second.usage.cache_read_input_tokens, first.usage.cache_creation_input_tokens);
    assert.equal(first.usage.input_tokens, second.usage.input_tokens, 'input_tokens excludes both');
  });

  it('reasoning_effort on Claude is a thinking budget; the reasoning comes back as reasoning_content', async () => {
    const completion = await client.chat.completions.create({
      model: 'sonnet45',
      messages: [{ role: 'user', content: 'think hard' }],
      reasoning_effort: 'low',
      temperature: 0.3,
    });
    const sent = lastJson(up.bedrock) as { additionalModelRequestFields: Json; inferenceConfig?: Json };
    assert.deepEqual(sent.additionalModelRequestFields, {
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    assert.equal(sent.inferenceConfig, undefined);
    const message = completion.choices[0].message as OpenAI.ChatCompletionMessage & {
      reasoning_content?: string;
      thinking_blocks?: Array<{ type: string; signature?: string }>;
    };
    assert.equal(message.reasoning_content, 'Thinking about: think hard');
    // Signed, for the client to send back on the next turn of a tool loop.
    assert.deepEqual(
      message.thinking_blocks?.map((block) => block.signature),
      ['c2lnbmF0dXJl'],
    );
    assert.equal(message.content, 'echo: think hard');

    const stream = await client.chat.completions.create({
      model: 'sonnet45',
      messages: [{ role: 'user', content: 'think hard' }],
      reasoning_effort: 'low',
      stream: true,
    });
    let reasoning = '';
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        | { content?: string | null; reasoning_content?: string }
        | undefined;
      reasoning += delta?.reasoning_content ?? '';
      text += delta?.content ?? '';
    }
    assert.equal(reasoning, 'Thinking about: think hard');
    assert.equal(text, 'echo: think hard');
  });

  it('json_object is a forced json_response tool whose input is the content (JSON and stream)', async () => {
    const completion = await client.chat.completions.create({
      model: 'nova',
      messages: [{ role: 'user', content: 'give json' }],
      response_format: { type: 'json_object' },
    });
    const sent = lastJson(up.bedrock) as { toolConfig: Json };
    assert.deepEqual(sent.toolConfig.toolChoice, { tool: { name: 'json_response' } });
    assert.deepEqual(JSON.parse(completion.choices[0].message.content ?? ''), { echo: 'give json' });
    assert.equal(completion.choices[0].message.tool_calls, undefined);
    assert.equal(completion.choices[0].finish_reason, 'stop');

    const stream = await client.chat.completions.create({
      model: 'nova',
      messages: [{ role: 'user', content: 'give json' }],
      response_format: { type: 'json_object' },
      stream: true,
    });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      assert.equal(chunk.choices[0]?.delta.tool_calls, undefined);
    }
    // The fake writes its echo text before the forced tool call; the JSON tool's input follows it.
    assert.ok(text.endsWith('{"echo":"give json"}'), text);
    assert.equal(finish, 'stop');
  });

  it("Messages -> Converse: the matched stop sequence comes back as Claude's stop_sequence, streamed and not", async () => {
    const anthropic = anthropicClient(up.gw, up.key);
    const request = {
      model: 'nova',
      max_tokens: 50,
      stop_sequences: ['NEVER', 'STOP'],
      messages: [{ role: 'user' as const, content: 'count to three STOP then more' }],
    };
    const message = await anthropic.messages.create(request);
    const sent = lastJson(up.bedrock) as {
      inferenceConfig: Json;
      additionalModelResponseFieldPaths: unknown;
    };
    assert.deepEqual(sent.inferenceConfig.stopSequences, ['NEVER', 'STOP']);
    assert.deepEqual(sent.additionalModelResponseFieldPaths, ['/stop_sequence']);
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.stop_sequence, 'STOP');
    assert.deepEqual(message.content, [{ type: 'text', text: 'echo: count to three ' }]);

    const streamed = await anthropic.messages.stream(request).finalMessage();
    assert.equal(streamed.stop_reason, 'stop_sequence');
    assert.equal(streamed.stop_sequence, 'STOP');
  });

  it("Converse: a Chat client gets the matched stop sequence as the choice's stop_reason (vLLM's field)", async () => {
    const completion = await client.chat.completions.create({
      model: 'nova',
      stop: ['NEVER', 'STOP'],
      messages: [{ role: 'user', content: 'count STOP' }],
    });
    const choice = completion.choices[0] as (typeof completion.choices)[0] & { stop_reason?: string };
    assert.equal(choice.finish_reason, 'stop');
    assert.equal(choice.stop_reason, 'STOP');
  });

  it("Converse on a model whose answer names no stop sequence: the request's only one", async () => {
    await createDeployment(up.gw, {
      publicModel: 'nova-pro',
      provider: 'bedrock',
      upstreamModel: 'amazon.nova-pro-v1:0',
      baseUrl: up.bedrock.baseUrl,
      apiKey: up.bedrock.apiKey,
      providerOptions: { region: up.bedrock.region },
    });
    const anthropic = anthropicClient(up.gw, up.key);
    const call = (stop_sequences: string[]) =>
      anthropic.messages.create({
        model: 'nova-pro',
        max_tokens: 50,
        stop_sequences,
        messages: [{ role: 'user', content: 'one STOP two' }],
      });
    const one = await call(['STOP']);
    assert.deepEqual([one.stop_reason, one.stop_sequence], ['stop_sequence', 'STOP']);
    // Two sequences, and the answer does not say which: a plain end of turn, never a guess.
    const two = await call(['NEVER', 'STOP']);
    assert.deepEqual([two.stop_reason, two.stop_sequence], ['end_turn', null]);
  });
});
