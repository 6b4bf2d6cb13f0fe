import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../errors/gateway-error.ts';
import { AnthropicStreamDecoder } from '../providers/anthropic/claude-stream-events.ts';
import { eventReaderOf } from './event-reader.ts';

const START =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n';
const ERROR =
  'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';

describe('eventReaderOf: an SSE upstream read by the engine', () => {
  test('hands over the events before an error event of the same bytes, then throws the error (they were lost)', () => {
    const reader = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    const events = reader.push(Buffer.from(`${START}${ERROR}`));
    assert.deepEqual(
      events.map((event) => event.event),
      ['message_start'],
    );
    assert.throws(
      () => reader.finish(),
      (error: unknown) => error instanceof GatewayError && error.code === 'upstream_overloaded',
    );
  });

  test('throws at once an error event that comes first in its bytes', () => {
    const reader = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    assert.throws(() => reader.push(Buffer.from(ERROR)), GatewayError);
  });

  test('reads an event split anywhere across chunks, and reports a stream cut before its end', () => {
    const reader = eventReaderOf(new AnthropicStreamDecoder('anthropic', 'public-claude'));
    const bytes = Buffer.from(START);
    const events = [...reader.push(bytes.subarray(0, 17)), ...reader.push(bytes.subarray(17))];
    assert.equal(events.length, 1);
    assert.equal(reader.usage()?.inputTokens, 3);
    assert.throws(
      () => reader.finish(),
      (error: unknown) => error instanceof GatewayError,
    );
  });
});
