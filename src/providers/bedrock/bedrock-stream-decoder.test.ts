import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { StreamEvent } from '../types.ts';
import type { BedrockAnswerMode } from './bedrock-answer-mode.ts';
import { BedrockStreamDecoder } from './bedrock-stream-decoder.ts';
import {
  encodeEventMessage,
  encodeEventStreamMessage,
  encodeExceptionMessage,
} from './event-stream-encoder.ts';

interface Frame {
  event: string;
  payload: unknown;
}
const recorded = JSON.parse(
  readFileSync(new URL('./fixtures/converse-stream-tool-use.json', import.meta.url), 'utf8'),
) as Frame[];
const recordedBytes = Buffer.concat(recorded.map((frame) => encodeEventMessage(frame.event, frame.payload)));

const decoder = (includeUsage = false) =>
  new BedrockStreamDecoder({ id: 'chatcmpl-1', model: 'm', created: 1_700_000_000, includeUsage });

/** A decoder for a request whose answer mode is `mode` (see bedrock-answer-mode.ts). */
const modeDecoder = (mode: BedrockAnswerMode) =>
  new BedrockStreamDecoder({
    id: 'chatcmpl-1',
    model: 'm',
    created: 1_700_000_000,
    includeUsage: false,
    mode,
  });

function decodeAll(bytes: Uint8Array, includeUsage = false): StreamEvent[] {
  const d = decoder(includeUsage);
  return [...d.push(bytes), ...d.finish()];
}

/** The chunks' deltas and finish reasons only, for readable expectations. */
const deltas = (events: StreamEvent[]) =>
  events.map((event) =>
    typeof event.data === 'string'
      ? event.data
      : (event.data as { choices: Array<{ delta: unknown; finish_reason: unknown }> }).choices.map((c) => [
          c.delta,
          c.finish_reason,
        ]),
  );

const gatewayError = (code: string) => (error: unknown) =>
  error instanceof GatewayError && error.code === code;

const framesOf = (name: string) =>
  Buffer.concat(
    (JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Frame[]).map(
      (frame) => encodeEventMessage(frame.event, frame.payload),
    ),
  );

describe('reasoning, JSON mode and forbidden calls', () => {
  test('bedrock-stream-reasoning.json: reasoning deltas are reasoning_content, the signed block follows; usage has cache reads and writes', () => {
    const events = decodeAll(framesOf('bedrock-stream-reasoning.json'), true);
    assert.deepEqual(deltas(events).slice(0, 6), [
      [[{ role: 'assistant', content: '' }, null]],
      [[{ reasoning_content: '17 * 3' }, null]],
      [[{ reasoning_content: ' = 51.' }, null]],
      // At the signature, the whole block once, for the client to send back (LiteLLM's thinking_blocks).
      [
        [
          {
            thinking_blocks: [
              { type: 'thinking', thinking: '17 * 3 = 51.', signature: 'EqoBCkgIARABGAIiQL2UoU0b1OHYi' },
            ],
          },
          null,
        ],
      ],
      [[{ content: '51' }, null]],
      [[{}, 'stop']],
    ]);
    assert.deepEqual((events.at(-2)!.data as { usage: unknown }).usage, {
      prompt_tokens: 2120,
      completion_tokens: 41,
      total_tokens: 2161,
      prompt_tokens_details: { cached_tokens: 2048, cache_write_tokens: 60 },
    });
  });

  test('JSON mode: the json_response input streams as content and the finish is stop', () => {
    const d = modeDecoder({ callsForbidden: true, jsonTool: true });
    const bytes = Buffer.concat([
      encodeEventMessage('messageStart', { role: 'assistant' }),
      encodeEventMessage('contentBlockStart', {
        contentBlockIndex: 0,
        start: { toolUse: { toolUseId: 't', name: 'json_response' } },
      }),
      encodeEventMessage('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { toolUse: { input: '{"a":' } },
      }),
      encodeEventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '1}' } } }),
      encodeEventMessage('messageStop', { stopReason: 'tool_use' }),
    ]);
    assert.deepEqual(deltas([...d.push(bytes), ...d.finish()]), [
      [[{ role: 'assistant', content: '' }, null]],
      [[{ content: '{"a":' }, null]],
      [[{ content: '1}' }, null]],
      [[{}, 'stop']],
      '[DONE]',
    ]);
  });

  test('parallel_tool_calls false: a second streamed call is dropped', () => {
    const d = modeDecoder({ callsForbidden: false, jsonTool: false, singleToolCall: true });
    const call = (index: number, id: string) => [
      encodeEventMessage('contentBlockStart', {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId: id, name: 'f' } },
      }),
      encodeEventMessage('contentBlockDelta', {
        contentBlockIndex: index,
        delta: { toolUse: { input: '{}' } },
      }),
    ];
    const bytes = Buffer.concat([
      encodeEventMessage('messageStart', { role: 'assistant' }),
      ...call(0, 'a'),
      ...call(1, 'b'),
      encodeEventMessage('messageStop', { stopReason: 'tool_use' }),
    ]);
    const ids = [...d.push(bytes), ...d.finish()].flatMap((event) =>
      typeof event.data === 'string'
        ? []
        : (
            event.data as { choices: Array<{ delta: { tool_calls?: Array<{ id?: string }> } }> }
          ).choices.flatMap((c) => (c.delta.tool_calls ?? []).flatMap((t) => (t.id ? [t.id] : []))),
    );
    assert.deepEqual(ids, ['a']);
  });

  test('a malformed_tool_use stop ends the stream with an error, not a clean end', () => {
    const d = decoder();
    const bytes = Buffer.concat([
      encodeEventMessage('messageStart', { role: 'assistant' }),
      encodeEventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Writing.' } }),
    ]);
    assert.equal(d.push(bytes).length, 2);
    assert.throws(
      () => d.push(encodeEventMessage('messageStop', { stopReason: 'malformed_tool_use' })),
      gatewayError('upstream_generation_failed'),
    );
  });

  test('a tool call the request forbade ends the stream with an error', () => {
    const d = modeDecoder({ callsForbidden: true, jsonTool: false });
    assert.throws(() => d.push(recordedBytes), gatewayError('upstream_generation_failed'));
  });
});

describe('recorded tool-use stream', () => {
  test('becomes role, text, tool call start and argument deltas, finish, [DONE]', () => {
    assert.deepEqual(deltas(decodeAll(recordedBytes)), [
      [[{ role: 'assistant', content: '' }, null]],
      [[{ content: 'Let me' }, null]],
      [[{ content: ' check.' }, null]],
      [
        [
          {
            tool_calls: [
              {
                index: 0,
                id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
                type: 'function',
                function: { name: 'get_weather', arguments: '' },
              },
            ],
          },
          null,
        ],
      ],
      [[{ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, null]],
      [[{ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, null]],
      [[{}, 'tool_calls']],
      '[DONE]',
    ]);
  });

  test('chunks carry the completion identity', () => {
    const [first] = decodeAll(recordedBytes);
    assert.deepEqual(
      { ...(first.data as object), choices: undefined },
      {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: 'm',
        choices: undefined,
      },
    );
  });

  test('with include_usage, every chunk has usage null and a usage chunk with no choices closes the stream', () => {
    const events = decodeAll(recordedBytes, true);
    assert.ok(events.slice(0, -2).every((event) => (event.data as { usage: unknown }).usage === null));
    assert.deepEqual((events.at(-2)!.data as { choices: unknown; usage: unknown }).choices, []);
    assert.deepEqual((events.at(-2)!.data as { usage: unknown }).usage, {
      prompt_tokens: 412,
      completion_tokens: 58,
      total_tokens: 470,
    });
    assert.equal(events.at(-1)?.data, '[DONE]');
  });

  test('usage() reports the metadata event', () => {
    const d = decoder();
    d.push(recordedBytes);
    d.finish();
    assert.deepEqual(d.usage(), { inputTokens: 412, outputTokens: 58 });
  });

  test('property: any split of the byte stream gives the same events', () => {
    const whole = JSON.stringify(decodeAll(recordedBytes, true));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: recordedBytes.length }), { maxLength: 20 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const d = decoder(true);
        const events: StreamEvent[] = [];
        let start = 0;
        for (const point of [...points, recordedBytes.length]) {
          events.push(...d.push(recordedBytes.subarray(start, point)));
          start = point;
        }
        events.push(...d.finish());
        assert.equal(JSON.stringify(events), whole);
      }),
    );
  });
});

describe('failures', () => {
  test('an exception message mid-stream is a classified GatewayError', () => {
    const d = decoder();
    d.push(encodeEventMessage('messageStart', { role: 'assistant' }));
    assert.throws(
      () =>
        d.push(
          encodeExceptionMessage('throttlingException', 'Too many tokens, please wait before trying again.'),
        ),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.code === 'rate_limit_exceeded' &&
        (error.detail as { providerMessage?: string }).providerMessage ===
          'Too many tokens, please wait before trying again.',
    );
  });

  test('a modelStreamErrorException is an upstream error', () => {
    assert.throws(
      () => decoder().push(encodeExceptionMessage('modelStreamErrorException', 'The model stream failed.')),
      gatewayError('upstream_error'),
    );
  });

  test('an error message (:error-code) is an upstream error', () => {
    const frame = encodeEventStreamMessage(
      { ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'boom' },
      '',
    );
    assert.throws(() => decoder().push(frame), gatewayError('upstream_error'));
  });

  test('a corrupted byte fails the CRC and ends the stream with an upstream error', () => {
    const bytes = Buffer.from(recordedBytes);
    bytes[40] ^= 0xff;
    assert.throws(() => decoder().push(bytes), gatewayError('upstream_error'));
  });

  test('a stream cut inside a message fails at finish()', () => {
    const d = decoder();
    d.push(recordedBytes.subarray(0, recordedBytes.length - 5));
    assert.throws(() => d.finish(), gatewayError('upstream_error'));
  });

  test('a stream that ends cleanly between messages but before messageStop fails at finish()', () => {
    const d = decoder();
    d.push(
      Buffer.concat(recorded.slice(0, 3).map((frame) => encodeEventMessage(frame.event, frame.payload))),
    );
    assert.throws(() => d.finish(), gatewayError('upstream_error'));
  });

  test('a payload that does not match the documented event shape is an upstream error', () => {
    assert.throws(
      () => decoder().push(encodeEventMessage('contentBlockDelta', { delta: { text: 'x' } })),
      gatewayError('upstream_error'),
    );
  });

  test('an event type added later by AWS is skipped', () => {
    assert.deepEqual(decoder().push(encodeEventMessage('somethingNew', { x: 1 })), []);
  });
});
