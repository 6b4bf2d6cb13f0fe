import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { GatewayError } from '../../errors/gateway-error.ts';
import { eventReaderOf } from '../../upstream/event-reader.ts';
import type { StreamEvent } from '../types.ts';
import { GeminiStreamDecoder } from './gemini-stream-decoder.ts';
import { thoughtSignatureOf } from './gemini-tool-call-id.ts';

const recorded = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const TEXT = recorded('stream-text.sse');
const CALLS = recorded('stream-function-calls.sse');

const decoder = (includeUsage = false) =>
  eventReaderOf(
    new GeminiStreamDecoder({
      id: 'chatcmpl-1',
      model: 'gemini-2.0-flash',
      created: 1_700_000_000,
      includeUsage,
    }),
  );

function decodeAll(bytes: Uint8Array, includeUsage = false): StreamEvent[] {
  const d = decoder(includeUsage);
  return [...d.push(bytes), ...d.finish()];
}

const sse = (value: unknown) => Buffer.from(`data: ${JSON.stringify(value)}\r\n\r\n`);
const choicesOf = (events: StreamEvent[]) =>
  events.map((event) =>
    typeof event.data === 'string'
      ? event.data
      : (
          event.data as { choices: Array<{ index: number; delta: unknown; finish_reason: unknown }> }
        ).choices.map((c) => [c.index, c.delta, c.finish_reason]),
  );
const gatewayError = (code: string) => (error: unknown) =>
  error instanceof GatewayError && error.code === code;

describe('recorded streams', () => {
  test('gemini-stream-malformed-function-call.sse: the text streams, then an error, never a clean end', () => {
    const d = decoder();
    const [first, second, last] = recorded('gemini-stream-malformed-function-call.sse')
      .toString('utf8')
      .split('\r\n\r\n');
    assert.deepEqual(
      choicesOf([...d.push(Buffer.from(`${first}\r\n\r\n`)), ...d.push(Buffer.from(`${second}\r\n\r\n`))]),
      [
        [[0, { role: 'assistant', content: '' }, null]],
        [[0, { content: 'Writing the' }, null]],
        [[0, { content: ' file now.' }, null]],
      ],
    );
    assert.throws(
      () => d.push(Buffer.from(`${last}\r\n\r\n`)),
      (error: unknown) =>
        gatewayError('upstream_generation_failed')(error) &&
        (error as GatewayError).status === 502 &&
        ((error as GatewayError).detail as { finishReason: string }).finishReason ===
          'MALFORMED_FUNCTION_CALL',
    );
  });

  test('gemini-stream-malformed-function-call.sse in one read: the text still goes out, the error follows at the end', () => {
    const d = decoder();
    assert.deepEqual(choicesOf(d.push(recorded('gemini-stream-malformed-function-call.sse'))), [
      [[0, { role: 'assistant', content: '' }, null]],
      [[0, { content: 'Writing the' }, null]],
      [[0, { content: ' file now.' }, null]],
    ]);
    assert.throws(() => d.finish(), gatewayError('upstream_generation_failed'));
  });

  test('gemini-stream-thoughts.sse: thought parts are reasoning_content deltas', () => {
    assert.deepEqual(choicesOf(decodeAll(recorded('gemini-stream-thoughts.sse'))), [
      [[0, { role: 'assistant', content: '' }, null]],
      [[0, { reasoning_content: '**Adding the numbers**\n\nTwo plus two is four.' }, null]],
      [[0, { content: '4' }, null]],
      [[0, {}, 'stop']],
      '[DONE]',
    ]);
  });

  test('text: role, two deltas, finish, [DONE]; the empty closing part adds no delta', () => {
    assert.deepEqual(choicesOf(decodeAll(TEXT)), [
      [[0, { role: 'assistant', content: '' }, null]],
      [[0, { content: 'The' }, null]],
      [[0, { content: ' sky is blue because air scatters short wavelengths.' }, null]],
      [[0, {}, 'stop']],
      '[DONE]',
    ]);
  });

  test('with include_usage the last chunk before [DONE] has the final usage and no choices', () => {
    const events = decodeAll(TEXT, true);
    assert.deepEqual(events.at(-2)!.data, {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'gemini-2.0-flash',
      choices: [],
      usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
    });
  });

  test('parallel function calls arrive whole, indexed, the first carrying the thought signature; finish is tool_calls', () => {
    const events = decodeAll(CALLS);
    const toolChunk = events[1].data as {
      choices: Array<{ delta: { tool_calls: Array<{ index: number; id: string; function: unknown }> } }>;
    };
    const calls = toolChunk.choices[0].delta.tool_calls;
    assert.deepEqual(
      calls.map((c) => [c.index, c.function]),
      [
        [0, { name: 'get_weather', arguments: '{"city":"Paris"}' }],
        [1, { name: 'get_time', arguments: '{"zone":"Europe/Paris"}' }],
      ],
    );
    assert.equal(
      thoughtSignatureOf(calls[0].id),
      'BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8wMTIz',
    );
    assert.equal(thoughtSignatureOf(calls[1].id), undefined);
    assert.deepEqual(choicesOf(events).slice(2), [[[0, {}, 'tool_calls']], '[DONE]']);
  });

  test('usage() counts thinking tokens as output', () => {
    const d = decoder();
    d.push(CALLS);
    d.finish();
    assert.deepEqual(d.usage(), { inputTokens: 40, outputTokens: 60 });
  });

  test('property: any split of the bytes gives the same events', () => {
    const whole = JSON.stringify(decodeAll(TEXT, true));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: TEXT.length }), { maxLength: 20 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const d = decoder(true);
        const events: StreamEvent[] = [];
        let start = 0;
        for (const point of [...points, TEXT.length]) {
          events.push(...d.push(TEXT.subarray(start, point)));
          start = point;
        }
        events.push(...d.finish());
        assert.equal(JSON.stringify(events), whole);
      }),
    );
  });
});

test('two candidates stream as two choices and both must finish', () => {
  const d = decoder();
  const events = d.push(
    Buffer.concat([
      sse({
        candidates: [
          { content: { parts: [{ text: 'A' }] }, index: 0 },
          { content: { parts: [{ text: 'B' }] }, index: 1 },
        ],
      }),
      sse({ candidates: [{ content: { parts: [] }, finishReason: 'STOP', index: 0 }] }),
    ]),
  );
  assert.deepEqual(choicesOf(events).flat(), [
    [0, { role: 'assistant', content: '' }, null],
    [0, { content: 'A' }, null],
    [1, { role: 'assistant', content: '' }, null],
    [1, { content: 'B' }, null],
    [0, {}, 'stop'],
  ]);
  assert.throws(() => d.finish(), gatewayError('upstream_error'));
});

describe('failures', () => {
  test('an error event mid-stream is a classified GatewayError', () => {
    const d = decoder();
    d.push(sse({ candidates: [{ content: { parts: [{ text: 'A' }] }, index: 0 }] }));
    assert.throws(
      () => d.push(sse({ error: { code: 503, status: 'UNAVAILABLE', message: 'The model is overloaded.' } })),
      gatewayError('upstream_overloaded'),
    );
  });

  test('a prompt blocked in the first chunk is a content policy error', () => {
    assert.throws(
      () => decoder().push(sse({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } })),
      gatewayError('content_policy_violation'),
    );
  });

  test('a stream that ends before a finishReason is an upstream error, never a clean end', () => {
    const d = decoder();
    // Two whole events, then the connection ends where the third would start.
    d.push(TEXT.subarray(0, TEXT.lastIndexOf('data:')));
    assert.throws(() => d.finish(), gatewayError('upstream_error'));
  });

  test('a final event without its blank line is still read at the end', () => {
    const trimmed = TEXT.subarray(0, TEXT.length - 4);
    assert.deepEqual(choicesOf(decodeAll(trimmed)), choicesOf(decodeAll(TEXT)));
  });

  test('an event that is not JSON is a malformed answer', () => {
    assert.throws(
      () => decoder().push(Buffer.from('data: {not json\r\n\r\n')),
      gatewayError('upstream_error'),
    );
  });
});
