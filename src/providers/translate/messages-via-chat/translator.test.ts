import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { UpstreamChatCompletion } from '../../../formats/chat-completions/wire.ts';
import { estimateInputTokens } from '../../../formats/estimate-tokens.ts';
import type { AnthropicMessagesRequest } from '../../../formats/messages/wire.ts';
import { SSE_DONE } from '../../../formats/sse.ts';
import { eventReaderOf } from '../../../upstream/event-reader.ts';
import { OpenAIChatStreamDecoder } from '../../openai/openai-chat-stream-decoder.ts';
import type { StreamEvent } from '../../types.ts';
import { CHAT_FINISH_TO_STOP_REASON } from './finish-reason.ts';
import { messagesViaChat } from './translator.ts';

const base: AnthropicMessagesRequest = {
  model: 'claude-public',
  max_tokens: 512,
  messages: [{ role: 'user', content: 'Hello' }],
};

function isUnsupported(param: string) {
  return (e: unknown) => e instanceof GatewayError && e.code === 'unsupported_parameter' && e.param === param;
}

describe('messages via chat: request', () => {
  test('a plain request: system, max_tokens as max_completion_tokens, sampling, stop sequences, user', () => {
    const chat = messagesViaChat.request({
      ...base,
      system: 'You are terse.',
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      metadata: { user_id: 'u-42' },
    });
    assert.deepEqual(chat, {
      model: 'claude-public',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello' },
      ],
      max_completion_tokens: 512,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      user: 'u-42',
    });
  });

  test('system blocks are joined; streaming asks for the usage chunk', () => {
    const chat = messagesViaChat.request({
      ...base,
      stream: true,
      system: [
        { type: 'text', text: 'Rule one.' },
        { type: 'text', text: 'Rule two.' },
      ],
    });
    assert.deepEqual(chat.messages[0], { role: 'system', content: 'Rule one.\nRule two.' });
    assert.equal(chat.stream, true);
    assert.deepEqual(chat.stream_options, { include_usage: true });
  });

  test('images (base64 and url) become image_url parts beside the text', () => {
    const chat = messagesViaChat.request({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            { type: 'text', text: 'What are these?' },
          ],
        },
      ],
    });
    assert.deepEqual(chat.messages, [
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          { type: 'text', text: 'What are these?' },
        ],
      },
    ]);
  });

  test('a tool round trip: tools, tool_choice, tool_use -> tool_calls, tool_result -> tool messages first', () => {
    const chat = messagesViaChat.request({
      ...base,
      tools: [
        {
          name: 'get_weather',
          description: 'Weather by city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should call the tool', signature: 'sig' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: [
                { type: 'text', text: '24' },
                { type: 'text', text: 'C' },
              ],
            },
            { type: 'text', text: 'Which is warmer?' },
          ],
        },
      ],
    });
    assert.deepEqual(chat.tools, [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather by city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ]);
    assert.equal(chat.tool_choice, 'required');
    assert.equal(chat.parallel_tool_calls, false);
    assert.deepEqual(chat.messages, [
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'toolu_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'toolu_2',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
      { role: 'tool', tool_call_id: 'toolu_2', content: '24C' },
      { role: 'user', content: 'Which is warmer?' },
    ]);
  });

  test('tool_choice auto, none and a named tool', () => {
    const tools = [{ name: 'f', input_schema: { type: 'object' } }];
    assert.equal(
      messagesViaChat.request({ ...base, tools, tool_choice: { type: 'auto' } }).tool_choice,
      'auto',
    );
    assert.equal(
      messagesViaChat.request({ ...base, tools, tool_choice: { type: 'none' } }).tool_choice,
      'none',
    );
    assert.deepEqual(
      messagesViaChat.request({ ...base, tools, tool_choice: { type: 'tool', name: 'f' } }).tool_choice,
      {
        type: 'function',
        function: { name: 'f' },
      },
    );
  });

  test('structured output becomes a json_schema response_format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const chat = messagesViaChat.request({
      ...base,
      output_config: { format: { type: 'json_schema', schema } },
    });
    assert.deepEqual(chat.response_format, {
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    });
  });

  test('what Chat cannot express is a 400 naming it', () => {
    assert.throws(() => messagesViaChat.request({ ...base, container: 'c1' }), isUnsupported('container'));
    assert.throws(
      () =>
        messagesViaChat.request({
          ...base,
          tools: [{ type: 'web_search_20250305', name: 'web_search', input_schema: {} }],
        }),
      isUnsupported('tools[0]'),
    );
    assert.throws(
      () =>
        messagesViaChat.request({
          ...base,
          messages: [
            {
              role: 'user',
              content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }],
            },
          ],
        }),
      isUnsupported('messages[0].content'),
    );
    assert.doesNotThrow(() => messagesViaChat.request({ ...base, thinking: { type: 'disabled' } }));
  });
});

const completion = (message: Record<string, unknown>, finishReason: string): UpstreamChatCompletion => ({
  id: 'chatcmpl-abc123',
  object: 'chat.completion',
  created: 1_741_569_952,
  model: 'gpt-4o-mini',
  choices: [
    { index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finishReason },
  ],
  usage: {
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    prompt_tokens_details: { cached_tokens: 30 },
  },
});

describe('messages via chat: response', () => {
  test('text answer: id, stop_reason, usage with cached tokens apart', () => {
    assert.deepEqual(messagesViaChat.response(completion({ content: 'Hi there' }, 'stop'), base), {
      id: 'msg_abc123',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o-mini',
      content: [{ type: 'text', text: 'Hi there' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 70,
        output_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 30,
      },
    });
  });

  test('tool calls become tool_use blocks with parsed input', () => {
    const answer = completion(
      {
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      'tool_calls',
    );
    const message = messagesViaChat.response(answer, base);
    assert.deepEqual(message.content, [
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    assert.equal(message.stop_reason, 'tool_use');
  });

  test('finish reasons map by table', () => {
    for (const [finish, stop] of Object.entries(CHAT_FINISH_TO_STOP_REASON)) {
      assert.equal(messagesViaChat.response(completion({ content: 'x' }, finish), base).stop_reason, stop);
    }
  });

  test('a refusal is text with stop_reason refusal', () => {
    const message = messagesViaChat.response(
      completion({ content: null, refusal: 'I cannot help.' }, 'stop'),
      base,
    );
    assert.deepEqual(message.content, [{ type: 'text', text: 'I cannot help.' }]);
    assert.equal(message.stop_reason, 'refusal');
  });

  test('tool arguments that are not JSON are an upstream failure, never {}', () => {
    const answer = completion(
      {
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
      },
      'tool_calls',
    );
    assert.throws(
      () => messagesViaChat.response(answer, base),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_error',
    );
  });
});

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): StreamEvent => ({
  data: {
    id: 'chatcmpl-s1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    usage: null,
  },
});
const usageChunk: StreamEvent = {
  data: {
    id: 'chatcmpl-s1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  },
};
const ev = (type: string, fields: Record<string, unknown> = {}): StreamEvent => ({
  event: type,
  data: { type, ...fields },
});

describe('messages via chat: stream', () => {
  test('text then a tool call: the full Anthropic event sequence', () => {
    const translator = messagesViaChat.createStreamTranslator(base);
    const input = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Let me ' }),
      chunk({ content: 'check.' }),
      chunk({
        tool_calls: [
          { index: 0, id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk,
      { data: SSE_DONE },
    ];
    const out = [...input.flatMap((e) => translator.push(e)), ...translator.finish()];
    assert.deepEqual(out, [
      ev('message_start', {
        message: {
          id: 'msg_s1',
          type: 'message',
          role: 'assistant',
          model: 'gpt-4o-mini',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          // The gateway's estimate until message_delta brings the upstream's count.
          usage: { input_tokens: estimateInputTokens('messages', base), output_tokens: 0 },
        },
      }),
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Let me ' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'check.' } }),
      ev('content_block_stop', { index: 0 }),
      ev('content_block_start', {
        index: 1,
        content_block: { type: 'tool_use', id: 'call_9', name: 'get_weather', input: {} },
      }),
      ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
      ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }),
      ev('content_block_stop', { index: 1 }),
      ev('message_delta', {
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: {
          input_tokens: 12,
          output_tokens: 7,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      }),
      ev('message_stop'),
    ]);
  });

  test('a length stop becomes max_tokens', () => {
    const translator = messagesViaChat.createStreamTranslator(base);
    const out = [chunk({ content: 'Hi' }), chunk({}, 'length'), usageChunk, { data: SSE_DONE }].flatMap((e) =>
      translator.push(e),
    );
    const delta = out.find((e) => e.event === 'message_delta')?.data as { delta: { stop_reason: string } };
    assert.equal(delta.delta.stop_reason, 'max_tokens');
  });

  test('a stream that never reaches [DONE] fails in finish()', () => {
    const translator = messagesViaChat.createStreamTranslator(base);
    translator.push(chunk({ content: 'Hi' }));
    assert.throws(
      () => translator.finish(),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_error',
    );
  });

  test('the recorded parallel tool-call stream becomes two tool_use blocks with their whole JSON', () => {
    const decoder = eventReaderOf(
      new OpenAIChatStreamDecoder({ provider: 'openai', publicModel: 'public-gpt', includeUsage: true }),
    );
    const bytes = readFileSync(new URL('../../openai/fixtures/chat-stream-tool-calls.sse', import.meta.url));
    const translator = messagesViaChat.createStreamTranslator(base);
    const out = [...decoder.push(bytes), ...decoder.finish()].flatMap((e) => translator.push(e));
    const json = new Map<number, string>();
    for (const e of out) {
      const data = e.data as { type: string; index: number; delta?: { type: string; partial_json?: string } };
      if (data.type === 'content_block_delta' && data.delta?.type === 'input_json_delta') {
        json.set(data.index, (json.get(data.index) ?? '') + data.delta.partial_json);
      }
    }
    assert.deepEqual(
      [...json.values()].map((t) => JSON.parse(t)),
      [{ location: 'Paris, France' }, { tz: 'Europe/Paris' }],
    );
    const last = out.at(-2)?.data as { usage: Record<string, number> };
    assert.deepEqual(last.usage, {
      input_tokens: 18,
      output_tokens: 41,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 64,
    });
  });
});
