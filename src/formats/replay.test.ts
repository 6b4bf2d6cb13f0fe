import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { decodeAll } from '../../test/fakes/decode-stream.ts';
import { ENDPOINTS } from '../api/v1/endpoints.ts';
import type { EndpointBody } from '../pipeline/endpoint.ts';
import { OpenAIResponsesStreamDecoder } from '../providers/openai/openai-responses-stream-decoder.ts';
import { SSE_DONE } from './sse.ts';
import type { StreamEvent } from './stream-event.ts';

/** The client format an endpoint of `operation` speaks; undefined for one that has none (embeddings, images). */
const formatOf = (operation: string) =>
  ENDPOINTS.find((endpoint) => endpoint.operation === operation)?.format;
const replayAnswerAsEvents = (operation: string, answer: unknown, request: EndpointBody) =>
  formatOf(operation)?.replay(answer, request) ?? null;

const fixture = (path: string): Buffer => readFileSync(new URL(`../providers/${path}`, import.meta.url));
const fixtureJson = (path: string): Record<string, unknown> => JSON.parse(fixture(path).toString());

const plain: EndpointBody = { model: 'gpt-public' };
const withUsage: EndpointBody = {
  model: 'gpt-public',
  stream: true,
  stream_options: { include_usage: true },
};

function replay(operation: string, answer: unknown, request: EndpointBody = plain): StreamEvent[] {
  const events = replayAnswerAsEvents(operation, answer, request);
  assert.ok(events !== null, 'replay gave null');
  return events;
}

/** The data of every event but `[DONE]`, for assertions on fields. */
function dataOf(events: StreamEvent[]): Array<Record<string, unknown>> {
  return events.filter((e) => e.data !== SSE_DONE).map((e) => e.data as Record<string, unknown>);
}

describe('replay: chat.completions', () => {
  const answer = fixtureJson('openai/fixtures/chat-completion.json');
  const head = {
    id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    object: 'chat.completion.chunk',
    created: 1741569952,
    model: 'gpt-4o-2024-08-06',
  };
  const identity = { service_tier: 'default', system_fingerprint: 'fp_fc9f1d7035' };
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });

  test('a recorded answer: the role, the content, the finish reason, then [DONE]; its identity on each chunk', () => {
    assert.deepEqual(replay('chat.completions', answer), [
      { data: { ...head, choices: [choice({ role: 'assistant', content: '' })], ...identity } },
      {
        data: { ...head, choices: [choice({ content: 'Hello! How can I assist you today?' })], ...identity },
      },
      { data: { ...head, choices: [choice({}, 'stop')], ...identity } },
      { data: SSE_DONE },
    ]);
  });

  test('include_usage: usage null on every chunk, then a usage chunk without choices before [DONE]', () => {
    const events = replay('chat.completions', answer, withUsage);
    assert.equal(events.length, 5);
    for (const data of dataOf(events).slice(0, 3)) assert.equal(data.usage, null);
    assert.deepEqual(events[3], { data: { ...head, usage: answer.usage, choices: [], ...identity } });
    assert.deepEqual(events[4], { data: SSE_DONE });
  });

  test('without include_usage no chunk carries usage', () => {
    for (const data of dataOf(replay('chat.completions', answer))) assert.equal('usage' in data, false);
  });

  test('each tool call goes out whole: index, id, type, name and all of its arguments', () => {
    const events = replay('chat.completions', fixtureJson('openai/fixtures/chat-completion-tool-calls.json'));
    assert.deepEqual(
      dataOf(events).map((d) => (d.choices as Array<{ delta: unknown }>)[0].delta),
      [
        { role: 'assistant', content: '' },
        {
          tool_calls: [
            {
              index: 0,
              id: 'call_abc123',
              type: 'function',
              function: { name: 'get_current_weather', arguments: '{\n"location": "Boston, MA"\n}' },
            },
          ],
        },
        {},
      ],
    );
    assert.equal(
      (dataOf(events)[2].choices as Array<{ finish_reason: string }>)[0].finish_reason,
      'tool_calls',
    );
  });

  test('several choices: each its own chunks, by its index; a refusal as a refusal delta', () => {
    const two = {
      ...answer,
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Yes.', refusal: null }, finish_reason: 'stop' },
        { index: 1, message: { role: 'assistant', content: null, refusal: 'No.' }, finish_reason: 'stop' },
      ],
    };
    const choices = dataOf(replay('chat.completions', two)).map(
      (d) => (d.choices as Array<{ index: number; delta: unknown }>)[0],
    );
    assert.deepEqual(
      choices.map((c) => [c.index, c.delta]),
      [
        [0, { role: 'assistant', content: '' }],
        [0, { content: 'Yes.' }],
        [0, {}],
        [1, { role: 'assistant', content: '' }],
        [1, { refusal: 'No.' }],
        [1, {}],
      ],
    );
  });

  test('an answer with what a replay cannot carry (logprobs, audio) is not replayed', () => {
    const [first] = answer.choices as Array<{ message: Record<string, unknown> }>;
    const withLogprobs = { ...answer, choices: [{ ...first, logprobs: { content: [] } }] };
    const withAudio = {
      ...answer,
      choices: [{ ...first, message: { ...first.message, audio: { id: 'a' } } }],
    };
    assert.equal(replayAnswerAsEvents('chat.completions', withLogprobs, plain), null);
    assert.equal(replayAnswerAsEvents('chat.completions', withAudio, plain), null);
  });

  test('garbage is no answer to replay', () => {
    for (const garbage of [null, 'text', 42, [], {}, { ...answer, choices: 'none' }, { ...answer, id: 7 }]) {
      assert.equal(replayAnswerAsEvents('chat.completions', garbage, plain), null);
    }
  });
});

describe('replay: messages', () => {
  const message = {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [
      { type: 'thinking', thinking: 'The user wants weather.', signature: 'sig==' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 10,
      output_tokens: 20,
      cache_creation_input_tokens: 1,
      cache_read_input_tokens: 2,
    },
  };
  const event = (type: string, fields: Record<string, unknown>): StreamEvent => ({
    event: type,
    data: { type, ...fields },
  });

  test('the whole event sequence: message_start, each block started empty and filled by deltas, message_delta, message_stop', () => {
    assert.deepEqual(replay('messages', message), [
      event('message_start', { message: { ...message, content: [], stop_reason: null } }),
      event('content_block_start', {
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
      event('content_block_delta', {
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'The user wants weather.' },
      }),
      event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig==' } }),
      event('content_block_stop', { index: 0 }),
      event('content_block_start', {
        index: 1,
        content_block: { type: 'redacted_thinking', data: 'opaque' },
      }),
      event('content_block_stop', { index: 1 }),
      event('content_block_start', { index: 2, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { index: 2, delta: { type: 'text_delta', text: 'Checking.' } }),
      event('content_block_stop', { index: 2 }),
      event('content_block_start', {
        index: 3,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
      }),
      event('content_block_delta', {
        index: 3,
        delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' },
      }),
      event('content_block_stop', { index: 3 }),
      event('message_delta', {
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: message.usage,
      }),
      event('message_stop', {}),
    ]);
  });

  test('a recorded answer replays with each event named by its type', () => {
    const events = replay('messages', fixtureJson('anthropic/fixtures/message-tool-use.json'));
    for (const e of events) assert.equal(e.event, (e.data as { type: string }).type);
    assert.deepEqual(
      events.map((e) => e.event),
      [
        'message_start',
        ...['content_block_start', 'content_block_delta', 'content_block_stop'],
        ...['content_block_start', 'content_block_delta', 'content_block_stop'],
        'message_delta',
        'message_stop',
      ],
    );
  });

  test('garbage is no answer to replay', () => {
    const garbage = [
      null,
      { type: 'message' },
      { ...message, content: [{ type: 'text', text: 3 }] },
      { ...message, content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: 'not an object' }] },
      { ...message, content: [{ type: 'thinking', thinking: 'no signature' }] },
      { ...message, usage: null },
    ];
    for (const answer of garbage) assert.equal(replayAnswerAsEvents('messages', answer, plain), null);
  });
});

describe('replay: responses', () => {
  const recordedAnswer = fixtureJson('openai/fixtures/response.json');
  const base = { ...recordedAnswer, output: [] };

  test('a recorded answer replays as the recorded stream of it, its text in one delta', () => {
    const recorded = decodeAll(
      // The recording's own model, as the recorded answer names it.
      new OpenAIResponsesStreamDecoder('openai', 'gpt-4.1-2025-04-14'),
      fixture('openai/fixtures/responses-stream.sse'),
    );
    const events = replay('responses', recordedAnswer);
    const isDelta = (e: StreamEvent) => e.event === 'response.output_text.delta';
    const withoutSequence = (e: StreamEvent) => {
      const { sequence_number: _sequence, ...data } = e.data as Record<string, unknown>;
      return { event: e.event, data };
    };
    assert.deepEqual(
      events.filter((e) => !isDelta(e)).map(withoutSequence),
      recorded.filter((e) => !isDelta(e)).map(withoutSequence),
    );
    const deltas = (list: StreamEvent[]) =>
      list.filter(isDelta).map((e) => (e.data as { delta: string }).delta);
    assert.deepEqual(deltas(events), [deltas(recorded).join('')]);
  });

  test('every event numbered from 0 and named by its type', () => {
    const events = replay('responses', recordedAnswer);
    assert.deepEqual(
      dataOf(events).map((d) => d.sequence_number),
      events.map((_, i) => i),
    );
    for (const e of events) assert.equal(e.event, (e.data as { type: string }).type);
  });

  test('a reasoning summary, then a function call; an incomplete response ends with response.incomplete', () => {
    const answer = {
      ...base,
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [
        {
          id: 'rs_1',
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'Thinking about weather.' }],
        },
        {
          id: 'fc_1',
          type: 'function_call',
          status: 'completed',
          arguments: '{"city":"Paris"}',
          call_id: 'call_1',
          name: 'get_weather',
        },
      ],
    };
    const events = replay('responses', answer);
    assert.deepEqual(
      events.map((e) => e.event),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.reasoning_summary_part.added',
        'response.reasoning_summary_text.delta',
        'response.reasoning_summary_text.done',
        'response.reasoning_summary_part.done',
        'response.output_item.done',
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.incomplete',
      ],
    );
    const data = dataOf(events);
    assert.deepEqual(data[0].response, {
      ...answer,
      status: 'in_progress',
      incomplete_details: null,
      output: [],
      usage: null,
    });
    assert.deepEqual(data[8].item, { ...answer.output[1], status: 'in_progress', arguments: '' });
    assert.deepEqual(data[9], {
      type: 'response.function_call_arguments.delta',
      item_id: 'fc_1',
      output_index: 1,
      delta: '{"city":"Paris"}',
      sequence_number: 9,
    });
    assert.deepEqual(data[10], {
      type: 'response.function_call_arguments.done',
      item_id: 'fc_1',
      output_index: 1,
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
      sequence_number: 10,
    });
    assert.deepEqual(data[12].response, answer);
  });

  test('annotations of a text part are announced between its delta and its done', () => {
    const annotation = { type: 'url_citation', url: 'https://example.com', start_index: 0, end_index: 2 };
    const part = { type: 'output_text', text: 'Hi', annotations: [annotation] };
    const answer = {
      ...base,
      output: [{ id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [part] }],
    };
    const data = dataOf(replay('responses', answer));
    const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
    assert.deepEqual(
      data.slice(3, 8).map(({ sequence_number: _s, ...rest }) => rest),
      [
        { type: 'response.content_part.added', ...at, part: { ...part, text: '', annotations: [] } },
        { type: 'response.output_text.delta', ...at, delta: 'Hi', logprobs: [] },
        { type: 'response.output_text.annotation.added', ...at, annotation_index: 0, annotation },
        { type: 'response.output_text.done', ...at, text: 'Hi', logprobs: [] },
        { type: 'response.content_part.done', ...at, part },
      ],
    );
  });

  test('a response that did not complete, and garbage, are no answer to replay', () => {
    const garbage = [
      { ...recordedAnswer, status: 'failed' },
      { ...recordedAnswer, status: 'in_progress' },
      { ...recordedAnswer, output: [{ type: 'message', id: 'msg_1', content: 'text' }] },
      { ...recordedAnswer, output: [{ type: 'function_call', id: 'fc_1', name: 'f' }] },
      { ...recordedAnswer, object: 'chat.completion' },
      'response',
    ];
    for (const answer of garbage) assert.equal(replayAnswerAsEvents('responses', answer, plain), null);
  });
});

test('an operation that does not stream replays as null', () => {
  for (const operation of ['embeddings', 'images.generations', 'unknown']) {
    assert.equal(replayAnswerAsEvents(operation, { object: 'list', data: [] }, plain), null);
  }
});
