import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { recordedJson, recordedReply, recordedText } from '../fakes/recorded.ts';
import {
  answerFirstFailure,
  anthropicClient,
  createDeployment,
  type Json,
  lastJson,
  OPENAI_UPSTREAM_KEY,
  openaiClient,
  rejection,
  startUpstreams,
  type Upstreams,
} from './support.ts';

const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQK';

/** One Chat request using every row of the conformance matrix a native call passes on. */
const chatRequest = (model: string): OpenAI.ChatCompletionCreateParamsNonStreaming => ({
  model,
  messages: [
    { role: 'system', content: 'be brief' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'found' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'lookup',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        strict: true,
      },
    },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: false,
  n: 2,
  logprobs: true,
  top_logprobs: 2,
  stop: ['END'],
  temperature: 0.5,
  top_p: 0.9,
  max_completion_tokens: 100,
  metadata: { trace: 't1' },
  user: 'u1',
  prompt_cache_key: 'session-1',
  response_format: {
    type: 'json_schema',
    json_schema: { name: 'answer', schema: { type: 'object', properties: {} } },
  },
});

/**
 * The native columns of the conformance matrix (docs/providers.md): a request using every feature
 * row reaches the upstream as the client sent it, with only the model renamed, through the
 * official clients (OpenAI native, Azure, Anthropic native).
 */
describe('conformance: native columns pass every feature on as sent', () => {
  let up: Upstreams;
  let openai: OpenAI;
  let anthropic: Anthropic;
  before(async () => {
    up = await startUpstreams();
    await createDeployment(up.gw, {
      publicModel: 'azure-gpt',
      provider: 'azure',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: up.openai.url,
      apiKey: OPENAI_UPSTREAM_KEY,
    });
    await answerFirstFailure(up.gw);
    openai = openaiClient(up.gw, up.key);
    anthropic = anthropicClient(up.gw, up.key);
  });
  beforeEach(() => {
    up.openai.reset();
    up.anthropic.reset();
  });
  after(() => up?.close());

  for (const [column, model, path] of [
    ['OpenAI native', 'gpt', '/v1/chat/completions'],
    ['Azure (v1 API)', 'azure-gpt', '/openai/v1/chat/completions'],
  ] as const) {
    it(`${column}: every Chat feature reaches the upstream verbatim but for the model`, async () => {
      const completion = await openai.chat.completions.create(chatRequest(model));
      assert.equal(completion.model, model);
      assert.equal(up.openai.lastRequest?.path, path);
      const { model: sentModel, ...sent } = lastJson(up.openai);
      const { model: _public, ...asked } = chatRequest(model);
      assert.deepEqual(sent, asked);
      assert.notEqual(sentModel, model, 'the public name never reaches the upstream');
    });
  }

  it('Anthropic native: every Messages feature reaches the upstream verbatim but for the model', async () => {
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'claude',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found' }] },
      ],
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      stop_sequences: ['END'],
      metadata: { user_id: 'u1' },
      // Anthropic's documented sampling field; not in this SDK version's request type.
      ...({ top_k: 5 } as object),
    };
    const message = await anthropic.messages.create(request);
    assert.equal(message.model, 'claude');
    const { model: sentModel, ...sent } = lastJson(up.anthropic);
    const { model: _public, ...asked } = request;
    assert.deepEqual(sent, asked);
    assert.equal(sentModel, 'claude-sonnet-4-5');
  });

  for (const [column, model, provider, fixture] of [
    ['OpenAI native', 'gpt', 'openai', 'openai-chat-completion-every-answer-row.json'],
    ['Azure', 'azure-gpt', 'azure', 'azure-chat-completion-content-filter-results.json'],
  ] as const) {
    it(`${column}: ${fixture} (choices, tool calls, logprobs, cached usage, annotations) reaches the client as recorded but for the model`, async () => {
      const recorded = recordedJson(provider, fixture) as Json;
      up.openai.enqueue({ status: 200, body: recorded });
      const completion = await openai.chat.completions.create(chatRequest(model));
      assert.deepEqual(completion, { ...recorded, model });
    });
  }

  it('OpenAI native: chat-stream-tool-calls.sse reaches a client asking for usage chunk for chunk but for the model', async () => {
    const recorded = recordedText('openai', 'chat-stream-tool-calls.sse');
    up.openai.enqueue({ status: 200, body: recorded, headers: { 'content-type': 'text/event-stream' } });
    const stream = await openai.chat.completions.create({
      ...chatRequest('gpt'),
      n: 1,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: unknown[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const expected = recorded
      .split('\n\n')
      .map((event) => event.replace(/^data: /, ''))
      .filter((data) => data !== '' && data !== '[DONE]')
      .map((data) => ({ ...(JSON.parse(data) as Json), model: 'gpt' }));
    assert.deepEqual(chunks, expected);
  });

  it('Anthropic native: anthropic-message-every-answer-row.json (thinking, tool use, cache usage) reaches the client as recorded but for the model', async () => {
    const recorded = recordedJson('anthropic', 'anthropic-message-every-answer-row.json') as Json;
    up.anthropic.enqueue({ status: 200, body: recorded });
    const message = await anthropic.messages.create({
      model: 'claude',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'look x up' }],
    });
    assert.deepEqual(message, { ...recorded, model: 'claude' });
  });

  it('Anthropic native: messages-stream-thinking-signature.sse reaches the client event for event', async () => {
    const recorded = recordedText('anthropic', 'messages-stream-thinking-signature.sse');
    up.anthropic.enqueue({ status: 200, body: recorded, headers: { 'content-type': 'text/event-stream' } });
    const stream = await anthropic.messages.create({
      model: 'claude',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'think' }],
      stream: true,
    });
    const events: unknown[] = [];
    for await (const event of stream) events.push(event);
    const expected = recorded
      .split('\n\n')
      .filter((event) => event.includes('data: '))
      .map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)) as Json)
      .filter((event) => event.type !== 'ping')
      .map((event) =>
        event.type === 'message_start'
          ? { ...event, message: { ...(event.message as Json), model: 'claude' } }
          : event,
      );
    assert.deepEqual(events, expected);
  });

  it('Azure: azure-400-content-filter.http is content_policy_violation, azure-429-rate-limit-retry-after.http keeps its Retry-After', async () => {
    up.openai.enqueue(recordedReply('azure', 'azure-400-content-filter.http'));
    const filtered = await rejection(
      openai.chat.completions.create({ model: 'azure-gpt', messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.ok(filtered instanceof OpenAI.BadRequestError, String(filtered));
    assert.equal(filtered.code, 'content_policy_violation');
    up.openai.enqueue(recordedReply('azure', 'azure-429-rate-limit-retry-after.http'));
    const limited = await rejection(
      openai.chat.completions.create({ model: 'azure-gpt', messages: [{ role: 'user', content: 'hi' }] }),
    );
    assert.ok(limited instanceof OpenAI.RateLimitError, String(limited));
    assert.equal(limited.headers?.get('retry-after'), '7');
  });

  for (const model of ['gpt', 'azure-gpt']) {
    it(`${model}: a stream broken mid-way by openai-stream-server-error-chunk.sse ends in an error the SDK raises`, async () => {
      up.openai.faultNextStream({
        afterEvents: 2,
        action: { raw: recordedText('openai', 'openai-stream-server-error-chunk.sse') },
      });
      const stream = await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'one two three four five' }],
        stream: true,
      });
      const error = await rejection(
        (async () => {
          for await (const _chunk of stream);
        })(),
      );
      assert.ok(error instanceof OpenAI.APIError, String(error));
      assert.equal((error.error as { code?: string } | undefined)?.code, 'upstream_error');
    });
  }
});
