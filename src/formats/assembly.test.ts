import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decodeAll } from '../../test/fakes/decode-stream.ts';
import { ENDPOINTS } from '../api/v1/endpoints.ts';
import type { EndpointBody } from '../pipeline/endpoint.ts';
import { AnthropicStreamDecoder } from '../providers/anthropic/claude-stream-events.ts';
import { OpenAIChatStreamDecoder } from '../providers/openai/openai-chat-stream-decoder.ts';
import { SseParser } from '../upstream/sse-parser.ts';
import { SSE_DONE } from './sse.ts';
import type { StreamEvent } from './stream-event.ts';

/** The client format an endpoint of `operation` speaks; undefined for one that has none (embeddings, images). */
const formatOf = (operation: string) =>
  ENDPOINTS.find((endpoint) => endpoint.operation === operation)?.format;
const createAnswerAssembler = (operation: string) => formatOf(operation)?.createAssembler() ?? null;

const fixture = (path: string): Buffer => readFileSync(new URL(`../providers/${path}`, import.meta.url));

/** A recorded upstream stream as its SSE events, every one of them (the usage chunk included). */
function recordedEvents(path: string): StreamEvent[] {
  const parser = new SseParser();
  return [...parser.push(fixture(path)), ...parser.end()].map(({ event, data }) => ({
    ...(event === undefined ? {} : { event }),
    data: data === SSE_DONE ? SSE_DONE : JSON.parse(data),
  }));
}

function assemble(operation: string, events: readonly StreamEvent[]): unknown {
  const assembler = createAnswerAssembler(operation);
  assert.ok(assembler !== null);
  for (const event of events) assembler.push(event);
  return assembler.answer();
}

function replay(operation: string, answer: unknown, request: EndpointBody): StreamEvent[] {
  const events = formatOf(operation)?.replay(answer, request) ?? null;
  assert.ok(events !== null, 'replay gave null');
  return events;
}

/** Replays `answer` and assembles the replay: a stream client and a plain one get the same answer. */
function roundTrip(operation: string, answer: unknown, request: EndpointBody): unknown {
  return assemble(operation, replay(operation, answer, request));
}

/** Every stream cut short of its last event assembles to null. */
function assertEveryPrefixIsIncomplete(operation: string, events: readonly StreamEvent[]): void {
  for (let end = 0; end < events.length; end++) {
    assert.equal(assemble(operation, events.slice(0, end)), null, `cut after ${end} events`);
  }
}

const chatRequest: EndpointBody = { model: 'gpt-public', stream: true };
const chatUsageRequest: EndpointBody = { ...chatRequest, stream_options: { include_usage: true } };

describe('assembly: chat.completions', () => {
  const usage = {
    prompt_tokens: 82,
    completion_tokens: 41,
    total_tokens: 123,
    prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
  const answer = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1741570283,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Paris is sunny.', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
      {
        index: 1,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{"tz":"CET"}' } },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
      {
        index: 2,
        message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage,
    service_tier: 'default',
    system_fingerprint: 'fp_1',
  };
  const { usage: _usage, ...answerWithoutUsage } = answer;

  test('with include_usage, replay then assembly gives the answer back: text, tool calls, a refusal', () => {
    assert.deepEqual(roundTrip('chat.completions', answer, chatUsageRequest), answer);
  });

  test('without include_usage the client saw no usage, and the answer has none', () => {
    assert.deepEqual(roundTrip('chat.completions', answer, chatRequest), answerWithoutUsage);
  });

  test("without include_usage the answer takes the decoder's usage, when there is one", () => {
    const assembler = createAnswerAssembler('chat.completions');
    assert.ok(assembler !== null);
    for (const event of replay('chat.completions', answer, chatRequest)) assembler.push(event);
    const assembled = assembler.answer({ inputTokens: 82, outputTokens: 41, cachedInputTokens: 64 });
    assert.deepEqual((assembled as { usage: unknown }).usage, {
      prompt_tokens: 82,
      completion_tokens: 41,
      total_tokens: 123,
      prompt_tokens_details: { cached_tokens: 64 },
    });
  });

  test('a stream cut short of [DONE], or before a choice finished, is incomplete', () => {
    const events = replay('chat.completions', answer, chatUsageRequest);
    assertEveryPrefixIsIncomplete('chat.completions', events);
    // Without its finish chunk, choice 1 never finished.
    const finishReasonOf = (e: StreamEvent): unknown =>
      e.data === SSE_DONE
        ? undefined
        : (e.data as { choices: Array<{ finish_reason: unknown }> }).choices[0]?.finish_reason;
    const unfinished = events.filter((e) => finishReasonOf(e) !== 'tool_calls');
    assert.equal(unfinished.length, events.length - 1);
    assert.equal(assemble('chat.completions', unfinished), null);
  });

  test("the gateway's error event ends the stream without an answer", () => {
    const events = replay('chat.completions', answer, chatRequest);
    const error = {
      data: { error: { message: 'upstream failed', type: 'server_error', param: null, code: 'x' } },
    };
    assert.equal(assemble('chat.completions', [...events.slice(0, 3), error, ...events.slice(3)]), null);
  });

  test('a stream with what assembly does not carry (logprobs, thinking_blocks) is not assembled', () => {
    const events = replay('chat.completions', answer, chatRequest);
    const changed = (change: (choice: Record<string, unknown>) => Record<string, unknown>) => {
      const chunk = events[1].data as { choices: Array<Record<string, unknown>> };
      return [events[0], { data: { ...chunk, choices: [change(chunk.choices[0])] } }, ...events.slice(2)];
    };
    assert.equal(
      assemble(
        'chat.completions',
        changed((c) => ({ ...c, logprobs: { content: [] } })),
      ),
      null,
    );
    const blocks = (c: Record<string, unknown>) => ({
      ...c,
      delta: { thinking_blocks: [{ type: 'redacted_thinking', data: 'x' }] },
    });
    assert.equal(assemble('chat.completions', changed(blocks)), null);
    const reasoning = (c: Record<string, unknown>) => ({ ...c, delta: { reasoning_content: 'hmm' } });
    const withReasoning = assemble('chat.completions', changed(reasoning)) as {
      choices: Array<{ message: { reasoning_content?: string } }>;
    };
    assert.equal(withReasoning.choices[0].message.reasoning_content, 'hmm', 'reasoning deltas are kept');
    assert.deepEqual(
      assemble(
        'chat.completions',
        changed((c) => c),
      ),
      answerWithoutUsage,
    );
  });

  test('a recorded upstream text stream, usage chunk included', () => {
    assert.deepEqual(assemble('chat.completions', recordedEvents('openai/fixtures/chat-stream-text.sse')), {
      id: 'chatcmpl-123',
      object: 'chat.completion',
      created: 1694268190,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 9,
        total_tokens: 18,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
      system_fingerprint: 'fp_44709d6fcb',
    });
  });

  test('a recorded upstream stream of two tool calls, their arguments joined by tool-call index', () => {
    const assembled = assemble(
      'chat.completions',
      recordedEvents('openai/fixtures/chat-stream-tool-calls.sse'),
    );
    const expected = {
      id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
      object: 'chat.completion',
      created: 1741570283,
      model: 'gpt-4o-2024-08-06',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              {
                id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"location":"Paris, France"}' },
              },
              {
                id: 'call_8mNq2oRzT1bYfXw0vK4jLp3E',
                type: 'function',
                function: { name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
              },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 82,
        completion_tokens: 41,
        total_tokens: 123,
        prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
      service_tier: 'default',
      system_fingerprint: 'fp_eb9dce56a8',
    };
    assert.deepEqual(assembled, expected);
    // Its replay assembles to it again.
    assert.deepEqual(roundTrip('chat.completions', assembled, chatUsageRequest), expected);
  });

  test('the recorded stream as a client without include_usage was sent it (through the decoder)', () => {
    const decoder = new OpenAIChatStreamDecoder({
      provider: 'openai',
      publicModel: 'public-gpt',
      includeUsage: false,
    });
    const events = decodeAll(decoder, fixture('openai/fixtures/chat-stream-text.sse'));
    const assembled = assemble('chat.completions', events) as Record<string, unknown>;
    assert.equal('usage' in assembled, false);
    assert.equal(
      (assembled.choices as Array<{ message: { content: string } }>)[0].message.content,
      'Hello! How can I help you today?',
    );
  });
});

describe('assembly: messages', () => {
  const answer = {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [
      { type: 'thinking', thinking: 'The user wants the weather.', signature: 'EqQBCkYIBxgCKkBsig==' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: "I'll check the weather." },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris', days: [1, 2] } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 2095,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1000,
      output_tokens: 503,
      service_tier: 'standard',
    },
  };
  const request: EndpointBody = { model: 'claude-public', stream: true };

  test('replay then assembly gives the answer back: thinking, redacted thinking, text, tool use', () => {
    assert.deepEqual(roundTrip('messages', answer, request), answer);
  });

  test('a stop sequence and an empty tool input come back too', () => {
    const stopped = {
      ...answer,
      content: [
        { type: 'text', text: 'Done' },
        { type: 'tool_use', id: 'toolu_2', name: 'now', input: {} },
      ],
      stop_reason: 'stop_sequence',
      stop_sequence: '###',
    };
    assert.deepEqual(roundTrip('messages', stopped, request), stopped);
  });

  test('a stream cut short of message_stop is incomplete', () => {
    assertEveryPrefixIsIncomplete('messages', replay('messages', answer, request));
  });

  test('an error event ends the stream without an answer', () => {
    const events = replay('messages', answer, request);
    const error = {
      event: 'error',
      data: { type: 'error', error: { type: 'overloaded_error', message: 'x' } },
    };
    assert.equal(assemble('messages', [...events.slice(0, 4), error, ...events.slice(4)]), null);
  });

  test('tool input that is not JSON, or a delta that cannot be applied, gives up', () => {
    const events = replay('messages', answer, request);
    const replaced = (type: string, delta: Record<string, unknown>) =>
      events.map((e) =>
        (e.data as { delta?: { type: string } }).delta?.type === type
          ? { ...e, data: { ...(e.data as object), delta } }
          : e,
      );
    assert.equal(
      assemble('messages', replaced('input_json_delta', { type: 'input_json_delta', partial_json: '{"a":' })),
      null,
    );
    assert.equal(assemble('messages', replaced('text_delta', { type: 'mystery_delta', text: 'x' })), null);
  });

  test('a recorded upstream stream (pings, a text block, tool input in pieces)', () => {
    const expected = {
      id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      stop_sequence: null,
      usage: {
        input_tokens: 472,
        output_tokens: 89,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 128,
      },
      content: [
        { type: 'text', text: "Okay, let's check the weather for San Francisco, CA:" },
        {
          type: 'tool_use',
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'get_weather',
          input: { location: 'San Francisco, CA', unit: 'fahrenheit' },
        },
      ],
      stop_reason: 'tool_use',
    };
    const path = 'anthropic/fixtures/messages-stream-tool-use.sse';
    assert.deepEqual(assemble('messages', recordedEvents(path)), expected);
    // As the client is sent it, through the decoder (naming the recording's model, as the
    // expected answer does), and replayed from what was stored.
    const decoder = new AnthropicStreamDecoder('anthropic', 'claude-sonnet-4-5-20250929');
    assert.deepEqual(assemble('messages', decodeAll(decoder, fixture(path))), expected);
    assert.deepEqual(roundTrip('messages', expected, request), expected);
  });
});

describe('assembly: responses', () => {
  const recordedAnswer = JSON.parse(fixture('openai/fixtures/response.json').toString());
  const request: EndpointBody = { model: 'gpt-public', input: 'Hi', stream: true };
  const toolAnswer = {
    ...recordedAnswer,
    output: [
      { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Weather needs a tool.' }] },
      {
        id: 'msg_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Let me look.', annotations: [] }],
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

  test('replay then assembly gives the answer back: reasoning, text, function call', () => {
    assert.deepEqual(roundTrip('responses', recordedAnswer, request), recordedAnswer);
    assert.deepEqual(roundTrip('responses', toolAnswer, request), toolAnswer);
  });

  test('an incomplete response is an answer too', () => {
    const incomplete = {
      ...toolAnswer,
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    };
    assert.deepEqual(roundTrip('responses', incomplete, request), incomplete);
  });

  test('a stream cut short of its terminal event is incomplete', () => {
    assertEveryPrefixIsIncomplete('responses', replay('responses', toolAnswer, request));
  });

  test('response.failed, an error event or the gateway error event end the stream without an answer', () => {
    const events = replay('responses', toolAnswer, request);
    const failures: StreamEvent[] = [
      {
        event: 'response.failed',
        data: { type: 'response.failed', response: { ...toolAnswer, status: 'failed' } },
      },
      { event: 'error', data: { type: 'error', code: 'server_error', message: 'x', sequence_number: 3 } },
      { data: { error: { message: 'x', type: 'server_error', param: null, code: 'upstream_error' } } },
    ];
    for (const failure of failures) {
      assert.equal(assemble('responses', [...events.slice(0, 3), failure, ...events.slice(3)]), null);
    }
  });

  test('a recorded upstream stream assembles to the recorded answer of the same response', () => {
    assert.deepEqual(
      assemble('responses', recordedEvents('openai/fixtures/responses-stream.sse')),
      recordedAnswer,
    );
  });
});

describe('assembly: odd input', () => {
  const operations = ['chat.completions', 'messages', 'responses'];

  test('an operation whose streams are not assembled has no assembler', () => {
    assert.equal(createAnswerAssembler('embeddings'), null);
    assert.equal(createAnswerAssembler('audio.transcriptions'), null);
  });

  test('no event throws, whatever it holds, and answer() is null or an object', () => {
    const event = fc.record(
      { event: fc.string(), data: fc.oneof(fc.anything(), fc.constant(SSE_DONE)) },
      { requiredKeys: ['data'] },
    );
    fc.assert(
      fc.property(fc.constantFrom(...operations), fc.array(event, { maxLength: 20 }), (operation, events) => {
        const answer = assemble(operation, events);
        assert.ok(answer === null || typeof answer === 'object');
      }),
    );
  });

  test('a whole stream with odd events spliced in anywhere gives up or ignores them, never throws', () => {
    const streams: Record<string, StreamEvent[]> = {
      'chat.completions': recordedEvents('openai/fixtures/chat-stream-tool-calls.sse'),
      messages: recordedEvents('anthropic/fixtures/messages-stream-tool-use.sse'),
      responses: recordedEvents('openai/fixtures/responses-stream.sse'),
    };
    const odd = fc.oneof(
      fc.constant<StreamEvent>({ data: null }),
      fc.constant<StreamEvent>({
        data: { type: 'content_block_delta', index: 9, delta: { type: 'text_delta' } },
      }),
      fc.constant<StreamEvent>({ data: { object: 'chat.completion.chunk', choices: [{ index: 'x' }] } }),
      fc.record({ data: fc.jsonValue() }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...operations), fc.nat(), odd, (operation, at, extra) => {
        const events = [...streams[operation]];
        events.splice(at % events.length, 0, extra);
        const answer = assemble(operation, events);
        assert.ok(answer === null || typeof answer === 'object');
      }),
    );
  });
});
