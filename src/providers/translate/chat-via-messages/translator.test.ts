import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { ChatCompletionRequest } from '../../../formats/chat-completions/wire.ts';
import type { AnthropicMessage } from '../../../formats/messages/wire.ts';
import { SSE_DONE } from '../../../formats/sse.ts';
import { eventReaderOf } from '../../../upstream/event-reader.ts';
import { AnthropicStreamDecoder } from '../../anthropic/claude-stream-events.ts';
import type { StreamEvent } from '../../types.ts';
import { STOP_REASON_TO_CHAT_FINISH } from './answer.ts';
import { DEFAULT_MAX_TOKENS } from './request.ts';
import { createChatViaMessages } from './translator.ts';

const translator = createChatViaMessages({ nowSeconds: () => 1_750_000_000 });
const base: ChatCompletionRequest = { model: 'gpt-public', messages: [{ role: 'user', content: 'Hello' }] };

function isUnsupported(param: string) {
  return (e: unknown) => e instanceof GatewayError && e.code === 'unsupported_parameter' && e.param === param;
}

describe('chat via messages: request', () => {
  test('max_tokens defaults when absent (Anthropic requires it) and follows the client otherwise', () => {
    assert.deepEqual(translator.request(base), {
      model: 'gpt-public',
      max_tokens: DEFAULT_MAX_TOKENS,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    assert.equal(translator.request({ ...base, max_tokens: 100 }).max_tokens, 100);
    assert.equal(translator.request({ ...base, max_tokens: 100, max_completion_tokens: 50 }).max_tokens, 50);
  });

  test('system and developer messages become the system prompt; sampling, stop, user, stream', () => {
    const request = translator.request({
      model: 'gpt-public',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 0.5,
      stop: 'END',
      user: 'u-1',
      stream: true,
      stream_options: { include_usage: true },
      n: 1,
    });
    assert.deepEqual(request, {
      model: 'gpt-public',
      max_tokens: DEFAULT_MAX_TOKENS,
      messages: [{ role: 'user', content: 'Hello' }],
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in French.' },
      ],
      stream: true,
      temperature: 0.5,
      stop_sequences: ['END'],
      metadata: { user_id: 'u-1' },
    });
  });

  test('images: data URLs become base64 sources, other URLs url sources', () => {
    const request = translator.request({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
            { type: 'image_url', image_url: { url: 'https://example.com/b.png', detail: 'high' } },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages[0].content, [
      { type: 'text', text: 'Compare' },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
      {
        type: 'image',
        source: { type: 'url', url: 'https://example.com/b.png' },
        // Two images are over Claude's smallest cacheable prompt: the conversation's end is marked.
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  test('a tool round trip: tools, tool_choice, assistant tool_calls, tool messages merged into one user turn', () => {
    const request = translator.request({
      model: 'gpt-public',
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18C' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '24C' }] },
        { role: 'user', content: 'Which is warmer?' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    assert.deepEqual(request.tools, [
      { name: 'get_weather', input_schema: { type: 'object' }, description: 'Weather' },
    ]);
    assert.deepEqual(request.tool_choice, { type: 'any', disable_parallel_tool_use: true });
    assert.deepEqual(request.messages, [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: '24C' },
          { type: 'text', text: 'Which is warmer?' },
        ],
      },
    ]);
  });

  test('tool_choice auto, none and a named function', () => {
    assert.deepEqual(translator.request({ ...base, tool_choice: 'auto' }).tool_choice, { type: 'auto' });
    assert.deepEqual(translator.request({ ...base, tool_choice: 'none' }).tool_choice, { type: 'none' });
    assert.deepEqual(
      translator.request({ ...base, tool_choice: { type: 'function', function: { name: 'f' } } }).tool_choice,
      {
        type: 'tool',
        name: 'f',
      },
    );
  });

  test('json_schema response_format becomes structured output', () => {
    const schema = { type: 'object' };
    const request = translator.request({
      ...base,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema } },
    });
    // Closed, as Claude's structured outputs require every object to be (claude-json-schema.ts).
    const closed = { type: 'object', additionalProperties: false };
    assert.deepEqual(request.output_config, { format: { type: 'json_schema', schema: closed } });
  });

  test('what Messages cannot express is a 400 naming it, never a silent clamp', () => {
    assert.throws(() => translator.request({ ...base, temperature: 1.5 }), isUnsupported('temperature'));
    assert.throws(() => translator.request({ ...base, n: 2 }), isUnsupported('n'));
    assert.throws(() => translator.request({ ...base, logit_bias: { '1': 2 } }), isUnsupported('logit_bias'));
    assert.throws(
      () =>
        translator.request({
          ...base,
          messages: [
            { role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] },
          ],
        }),
      isUnsupported('messages[0].content'),
    );
    assert.throws(
      () =>
        translator.request({
          ...base,
          messages: [
            {
              role: 'assistant',
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'nope' } }],
            },
          ],
        }),
      (e: unknown) => e instanceof GatewayError && e.code === 'invalid_request',
    );
  });
});

const message = (content: AnthropicMessage['content'], stopReason: string): AnthropicMessage => ({
  id: 'msg_01XYZ',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content,
  stop_reason: stopReason,
  stop_sequence: null,
  usage: {
    input_tokens: 50,
    output_tokens: 12,
    cache_read_input_tokens: 100,
    cache_creation_input_tokens: 10,
  },
});

describe('chat via messages: response', () => {
  test('text and tool_use become content and tool_calls; usage sums the input counts', () => {
    const answer = message(
      [
        { type: 'text', text: 'Checking ' },
        { type: 'text', text: 'now.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      'tool_use',
    );
    assert.deepEqual(translator.response(answer, base), {
      id: 'chatcmpl-01XYZ',
      object: 'chat.completion',
      created: 1_750_000_000,
      model: 'claude-sonnet-4-5',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking now.',
            refusal: null,
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 160,
        completion_tokens: 12,
        total_tokens: 172,
        // Cache writes as Converse's are reported (bedrock-usage.ts): the same on every route.
        prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 10 },
      },
    });
  });

  test('stop reasons map by table', () => {
    for (const [stop, finish] of Object.entries(STOP_REASON_TO_CHAT_FINISH)) {
      assert.equal(
        translator.response(message([{ type: 'text', text: 'x' }], stop), base).choices[0].finish_reason,
        finish,
      );
    }
  });
});

const ev = (type: string, fields: Record<string, unknown> = {}): StreamEvent => ({
  event: type,
  data: { type, ...fields },
});
const upstream: StreamEvent[] = [
  ev('message_start', {
    message: {
      id: 'msg_S1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 25, output_tokens: 1 },
    },
  }),
  ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  ev('ping'),
  ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Let me check.' } }),
  ev('content_block_stop', { index: 0 }),
  ev('content_block_start', {
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: {} },
  }),
  ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '' } }),
  ev('content_block_delta', {
    index: 1,
    delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' },
  }),
  ev('content_block_stop', { index: 1 }),
  ev('message_delta', {
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 30 },
  }),
  ev('message_stop'),
];
const chunkOf = (delta: Record<string, unknown>, finishReason: string | null, usage?: null): StreamEvent => {
  const data: Record<string, unknown> = {
    id: 'chatcmpl-S1',
    object: 'chat.completion.chunk',
    created: 1_750_000_000,
    model: 'claude-sonnet-4-5',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  if (usage === null) data.usage = null;
  return { data };
};

describe('chat via messages: stream', () => {
  test('Anthropic events -> chunks with the usage chunk and [DONE] when asked', () => {
    const stream = translator.createStreamTranslator({
      ...base,
      stream: true,
      stream_options: { include_usage: true },
    });
    const out = [...upstream.flatMap((e) => stream.push(e)), ...stream.finish()];
    assert.deepEqual(out, [
      chunkOf({ role: 'assistant', content: '' }, null, null),
      chunkOf({ content: 'Let me check.' }, null, null),
      chunkOf(
        {
          tool_calls: [
            { index: 0, id: 'toolu_9', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        null,
        null,
      ),
      chunkOf({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }, null, null),
      chunkOf({}, 'tool_calls', null),
      {
        data: {
          id: 'chatcmpl-S1',
          object: 'chat.completion.chunk',
          created: 1_750_000_000,
          model: 'claude-sonnet-4-5',
          choices: [],
          usage: {
            prompt_tokens: 25,
            completion_tokens: 30,
            total_tokens: 55,
            prompt_tokens_details: { cached_tokens: 0 },
          },
        },
      },
      { data: SSE_DONE },
    ]);
  });

  test('without include_usage: no usage chunk and no usage field', () => {
    const stream = translator.createStreamTranslator({ ...base, stream: true });
    const out = upstream.flatMap((e) => stream.push(e));
    assert.equal(out.length, 6);
    assert.deepEqual(out[1], chunkOf({ content: 'Let me check.' }, null));
    assert.deepEqual(out.at(-1), { data: SSE_DONE });
  });

  test('a stream that never reaches message_stop fails in finish()', () => {
    const stream = translator.createStreamTranslator(base);
    for (const e of upstream.slice(0, 4)) stream.push(e);
    assert.throws(
      () => stream.finish(),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_error',
    );
  });

  test('the recorded Anthropic stream rebuilds the tool arguments exactly', () => {
    const decoder = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    const bytes = readFileSync(
      new URL('../../anthropic/fixtures/messages-stream-tool-use.sse', import.meta.url),
    );
    const stream = translator.createStreamTranslator({ ...base, stream: true });
    const chunks = [...decoder.push(bytes), ...decoder.finish()].flatMap((e) => stream.push(e));
    let text = '';
    let args = '';
    for (const { data } of chunks) {
      if (data === SSE_DONE) continue;
      const delta = (
        data as {
          choices: Array<{
            delta: { content?: string; tool_calls?: Array<{ function?: { arguments?: string } }> };
          }>;
        }
      ).choices[0].delta;
      text += delta.content ?? '';
      args += delta.tool_calls?.[0].function?.arguments ?? '';
    }
    assert.equal(text, "Okay, let's check the weather for San Francisco, CA:");
    assert.deepEqual(JSON.parse(args), { location: 'San Francisco, CA', unit: 'fahrenheit' });
  });
});
