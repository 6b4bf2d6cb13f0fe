import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { UpstreamChatCompletion } from '../../../formats/chat-completions/wire.ts';
import type { ResponsesRequest } from '../../../formats/responses/wire.ts';
import { SSE_DONE } from '../../../formats/sse.ts';
import type { StreamEvent } from '../../types.ts';
import { responsesViaChat } from './translator.ts';

const base: ResponsesRequest = { model: 'gpt-public', input: 'Tell me a joke' };

function isUnsupported(param: string) {
  return (e: unknown) => e instanceof GatewayError && e.code === 'unsupported_parameter' && e.param === param;
}

describe('responses via chat: request', () => {
  test('string input, instructions, max_output_tokens, sampling; gateway-served fields are not forwarded', () => {
    const chat = responsesViaChat.request({
      ...base,
      instructions: 'Be funny.',
      max_output_tokens: 200,
      temperature: 0.7,
      top_p: 0.9,
      store: true,
      metadata: { ticket: '42' },
      user: 'u-1',
    });
    assert.deepEqual(chat, {
      model: 'gpt-public',
      messages: [
        { role: 'system', content: 'Be funny.' },
        { role: 'user', content: 'Tell me a joke' },
      ],
      max_completion_tokens: 200,
      temperature: 0.7,
      top_p: 0.9,
      user: 'u-1',
    });
  });

  test('items: messages with input_text/input_image, earlier output, function calls and their outputs', () => {
    const chat = responsesViaChat.request({
      ...base,
      input: [
        { role: 'developer', content: 'Use tools.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this image, and the weather there?' },
            { type: 'input_image', image_url: 'https://example.com/paris.jpg', detail: 'low' },
          ],
        },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Paris. Checking.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_2', name: 'get_time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18C' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '14:00' }] },
      ],
    });
    assert.deepEqual(chat.messages, [
      { role: 'system', content: 'Use tools.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this image, and the weather there?' },
          { type: 'image_url', image_url: { url: 'https://example.com/paris.jpg', detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Paris. Checking.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18C' },
      { role: 'tool', tool_call_id: 'call_2', content: '14:00' },
    ]);
  });

  test('function tools, tool_choice, json_schema text format, reasoning effort, streaming', () => {
    const schema = { type: 'object', properties: { joke: { type: 'string' } }, required: ['joke'] };
    const chat = responsesViaChat.request({
      ...base,
      stream: true,
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object' },
          strict: true,
        },
      ],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'joke', schema, strict: true } },
      reasoning: { effort: 'low', summary: 'auto' },
    });
    assert.deepEqual(chat.tools, [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object' },
          strict: true,
        },
      },
    ]);
    assert.deepEqual(chat.tool_choice, { type: 'function', function: { name: 'get_weather' } });
    assert.equal(chat.parallel_tool_calls, false);
    assert.deepEqual(chat.response_format, {
      type: 'json_schema',
      json_schema: { name: 'joke', schema, strict: true },
    });
    assert.equal(chat.reasoning_effort, 'low');
    assert.equal(chat.stream, true);
    assert.deepEqual(chat.stream_options, { include_usage: true });
  });

  test('what Chat cannot express is a 400 naming it', () => {
    assert.throws(
      () =>
        responsesViaChat.request({
          ...base,
          tools: [{ type: 'web_search' }],
          tool_choice: { type: 'web_search' },
        }),
      isUnsupported('tool_choice'),
    );
    assert.throws(
      () => responsesViaChat.request({ ...base, previous_response_id: 'resp_1' }),
      isUnsupported('previous_response_id'),
    );
    assert.throws(() => responsesViaChat.request({ ...base, background: true }), isUnsupported('background'));
    assert.throws(
      () => responsesViaChat.request({ ...base, input: [{ type: 'item_reference', id: 'msg_1' }] }),
      isUnsupported('input[0]'),
    );
    assert.throws(
      () =>
        responsesViaChat.request({
          ...base,
          input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }],
        }),
      isUnsupported('input[0].content'),
    );
    assert.doesNotThrow(() =>
      responsesViaChat.request({ ...base, background: false, truncation: 'disabled' }),
    );
  });
});

const completion = (message: Record<string, unknown>, finishReason: string): UpstreamChatCompletion => ({
  id: 'chatcmpl-R1',
  object: 'chat.completion',
  created: 1_741_000_000,
  model: 'llama-3.1-8b',
  choices: [
    { index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finishReason },
  ],
  usage: {
    prompt_tokens: 30,
    completion_tokens: 12,
    total_tokens: 42,
    prompt_tokens_details: { cached_tokens: 10 },
  },
});

describe('responses via chat: response', () => {
  test('text: a completed response with one message item and Responses usage', () => {
    const request: ResponsesRequest = { ...base, instructions: 'Be funny.' };
    assert.deepEqual(
      responsesViaChat.response(completion({ content: 'Why did the chicken...' }, 'stop'), request),
      {
        id: 'resp_R1',
        object: 'response',
        created_at: 1_741_000_000,
        status: 'completed',
        error: null,
        incomplete_details: null,
        instructions: 'Be funny.',
        max_output_tokens: null,
        model: 'llama-3.1-8b',
        output: [
          {
            id: 'msg_R1_0',
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Why did the chicken...', annotations: [] }],
          },
        ],
        parallel_tool_calls: true,
        previous_response_id: null,
        reasoning: { effort: null, summary: null },
        store: true,
        temperature: 1,
        text: { format: { type: 'text' } },
        tool_choice: 'auto',
        tools: [],
        top_p: 1,
        truncation: 'disabled',
        usage: {
          input_tokens: 30,
          input_tokens_details: { cached_tokens: 10 },
          output_tokens: 12,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 42,
        },
        metadata: {},
      },
    );
  });

  test('tool calls become function_call items', () => {
    const answer = completion(
      {
        content: null,
        tool_calls: [
          { id: 'call_7', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      'tool_calls',
    );
    const response = responsesViaChat.response(answer, base);
    assert.deepEqual(response.output, [
      {
        id: 'fc_R1_0',
        type: 'function_call',
        status: 'completed',
        arguments: '{"city":"Oslo"}',
        call_id: 'call_7',
        name: 'get_weather',
      },
    ]);
    assert.equal(response.status, 'completed');
  });

  test('a length stop is an incomplete response (max_output_tokens)', () => {
    const response = responsesViaChat.response(completion({ content: 'Why' }, 'length'), base);
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
  });
});

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): StreamEvent => ({
  data: {
    id: 'chatcmpl-R2',
    object: 'chat.completion.chunk',
    created: 5,
    model: 'llama',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  },
});
const usageChunk: StreamEvent = {
  data: {
    id: 'chatcmpl-R2',
    object: 'chat.completion.chunk',
    created: 5,
    model: 'llama',
    choices: [],
    usage: { prompt_tokens: 8, completion_tokens: 4, total_tokens: 12 },
  },
};

describe('responses via chat: stream', () => {
  test('text then a function call: the whole Responses event sequence, numbered', () => {
    const stream = responsesViaChat.createStreamTranslator(base);
    const input = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hi' }),
      chunk({ content: ' there' }),
      chunk({
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk,
      { data: SSE_DONE },
    ];
    const out = [...input.flatMap((e) => stream.push(e)), ...stream.finish()];
    assert.deepEqual(
      out.map((e) => e.event),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    out.forEach((e, i) => {
      assert.equal((e.data as { sequence_number: number }).sequence_number, i);
      assert.equal((e.data as { type: string }).type, e.event);
    });
    const data = out.map((e) => {
      const { type: _t, sequence_number: _s, ...rest } = e.data as Record<string, unknown>;
      return rest;
    });
    assert.equal((data[0].response as { status: string }).status, 'in_progress');
    assert.deepEqual(data[2], {
      output_index: 0,
      item: { id: 'msg_R2_0', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    assert.deepEqual(data[3], {
      item_id: 'msg_R2_0',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    assert.deepEqual(data[4], {
      item_id: 'msg_R2_0',
      output_index: 0,
      content_index: 0,
      delta: 'Hi',
      logprobs: [],
    });
    assert.deepEqual(data[6], {
      item_id: 'msg_R2_0',
      output_index: 0,
      content_index: 0,
      text: 'Hi there',
      logprobs: [],
    });
    assert.deepEqual(data[7], {
      item_id: 'msg_R2_0',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: 'Hi there', annotations: [] },
    });
    const message = {
      id: 'msg_R2_0',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hi there', annotations: [] }],
    };
    assert.deepEqual(data[8], { output_index: 0, item: message });
    assert.deepEqual(data[9], {
      output_index: 1,
      item: {
        id: 'fc_R2_1',
        type: 'function_call',
        status: 'in_progress',
        arguments: '',
        call_id: 'call_1',
        name: 'f',
      },
    });
    assert.deepEqual(data[10], { item_id: 'fc_R2_1', output_index: 1, delta: '{"a"' });
    assert.deepEqual(data[12], { item_id: 'fc_R2_1', output_index: 1, name: 'f', arguments: '{"a":1}' });
    const call = {
      id: 'fc_R2_1',
      type: 'function_call',
      status: 'completed',
      arguments: '{"a":1}',
      call_id: 'call_1',
      name: 'f',
    };
    assert.deepEqual(data[13], { output_index: 1, item: call });
    const final = data[14].response as Record<string, unknown>;
    assert.equal(final.id, 'resp_R2');
    assert.equal(final.status, 'completed');
    assert.deepEqual(final.output, [message, call]);
    assert.deepEqual(final.usage, {
      input_tokens: 8,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 12,
    });
  });

  test('a length stop ends with response.incomplete and an incomplete message', () => {
    const stream = responsesViaChat.createStreamTranslator(base);
    const out = [chunk({ content: 'Hi' }), chunk({}, 'length'), usageChunk, { data: SSE_DONE }].flatMap((e) =>
      stream.push(e),
    );
    assert.equal(out.at(-1)?.event, 'response.incomplete');
    const final = (out.at(-1)!.data as { response: { status: string; output: Array<{ status: string }> } })
      .response;
    assert.equal(final.status, 'incomplete');
    assert.equal(final.output[0].status, 'incomplete');
  });

  test('a refusal is its own content part with refusal events', () => {
    const stream = responsesViaChat.createStreamTranslator(base);
    const out = [
      chunk({ refusal: "I can't" }),
      chunk({ refusal: ' help.' }),
      chunk({}, 'stop'),
      usageChunk,
      { data: SSE_DONE },
    ].flatMap((e) => stream.push(e));
    assert.deepEqual(out.map((e) => e.event).slice(2, 8), [
      'response.output_item.added',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.delta',
      'response.refusal.done',
      'response.content_part.done',
    ]);
    assert.equal((out[6].data as { refusal: string }).refusal, "I can't help.");
  });

  test('a stream that never reaches [DONE] fails in finish()', () => {
    const stream = responsesViaChat.createStreamTranslator(base);
    stream.push(chunk({ content: 'Hi' }));
    assert.throws(
      () => stream.finish(),
      (e: unknown) => e instanceof GatewayError && e.code === 'upstream_error',
    );
  });
});
