import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import {
  EventStreamDecoder,
  EventStreamFramingError,
  type EventStreamHeaderValue,
  type EventStreamMessage,
} from './event-stream-decoder.ts';
import { encodeEventStreamMessage } from './event-stream-encoder.ts';

// Published encodings of `{"foo": "bar"}` without headers and with `content-type: application/json`
// (hex package `event_stream`, lib/event_stream.ex, checked independently of this encoder).
const FOO_BAR = '{"foo": "bar"}';
const VECTOR_NO_HEADERS = Uint8Array.from([
  0, 0, 0, 30, 0, 0, 0, 0, 186, 242, 246, 138, 123, 34, 102, 111, 111, 34, 58, 32, 34, 98, 97, 114, 34, 125,
  174, 114, 88, 228,
]);
const VECTOR_CONTENT_TYPE = Uint8Array.from([
  0, 0, 0, 62, 0, 0, 0, 32, 64, 93, 249, 70, 12, 99, 111, 110, 116, 101, 110, 116, 45, 116, 121, 112, 101, 7,
  0, 16, 97, 112, 112, 108, 105, 99, 97, 116, 105, 111, 110, 47, 106, 115, 111, 110, 123, 34, 102, 111, 111,
  34, 58, 32, 34, 98, 97, 114, 34, 125, 111, 162, 191, 59,
]);

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

describe('known encodings', () => {
  test('the encoder reproduces both published vectors byte for byte', () => {
    assert.deepEqual(encodeEventStreamMessage({}, FOO_BAR), VECTOR_NO_HEADERS);
    assert.deepEqual(
      encodeEventStreamMessage({ 'content-type': 'application/json' }, FOO_BAR),
      VECTOR_CONTENT_TYPE,
    );
  });

  test('the decoder reads both published vectors', () => {
    const decoder = new EventStreamDecoder();
    const messages = decoder.push(Buffer.concat([VECTOR_NO_HEADERS, VECTOR_CONTENT_TYPE]));
    assert.equal(messages.length, 2);
    assert.deepEqual(messages[0].headers, {});
    assert.equal(text(messages[0].payload), FOO_BAR);
    assert.deepEqual(messages[1].headers, { 'content-type': 'application/json' });
    assert.equal(text(messages[1].payload), FOO_BAR);
    assert.equal(decoder.pendingBytes, 0);
  });
});

test('every header value type survives a round trip', () => {
  const headers: Record<string, EventStreamHeaderValue> = {
    yes: true,
    no: false,
    int: -123456,
    long: 9007199254740993n,
    bytes: Uint8Array.from([1, 2, 3]),
    str: 'héllo',
    when: new Date('2024-01-02T03:04:05.678Z'),
  };
  const [message] = new EventStreamDecoder().push(encodeEventStreamMessage(headers, new Uint8Array()));
  assert.deepEqual(message.headers, headers);
  assert.equal(message.payload.length, 0);
});

describe('integrity', () => {
  test('a corrupted payload byte fails the message CRC', () => {
    const bytes = Uint8Array.from(VECTOR_CONTENT_TYPE);
    bytes[50] ^= 0x01;
    assert.throws(
      () => new EventStreamDecoder().push(bytes),
      (error: unknown) => error instanceof EventStreamFramingError && error.fault === 'message_crc',
    );
  });

  test('a corrupted length fails the prelude CRC before waiting for the announced bytes', () => {
    const bytes = Uint8Array.from(VECTOR_NO_HEADERS);
    bytes[1] = 0x7f; // announces ~8 MiB
    assert.throws(
      () => new EventStreamDecoder().push(bytes.subarray(0, 12)),
      (error: unknown) => error instanceof EventStreamFramingError && error.fault === 'prelude_crc',
    );
  });

  test('a consistent prelude with impossible lengths is refused', () => {
    const bytes = Buffer.from(encodeEventStreamMessage({}, ''));
    // headers length larger than the message, with a matching prelude CRC
    const forged = Buffer.from(encodeEventStreamMessage({ a: 'b' }, ''));
    forged.writeUInt32BE(16, 0);
    forged.writeUInt32BE(4, 4);
    forged.writeUInt32BE(crc32(forged.subarray(0, 8)), 8);
    assert.equal(new EventStreamDecoder().push(bytes).length, 1);
    assert.throws(
      () => new EventStreamDecoder().push(forged),
      (error: unknown) => error instanceof EventStreamFramingError && error.fault === 'length',
    );
  });

  test('a message cut short stays pending instead of being decoded', () => {
    const decoder = new EventStreamDecoder();
    assert.deepEqual(decoder.push(VECTOR_CONTENT_TYPE.subarray(0, 40)), []);
    assert.equal(decoder.pendingBytes, 40);
  });
});

test('property: splitting the byte stream anywhere yields the same messages', () => {
  const messageArb = fc.record({
    headers: fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.oneof(fc.string({ maxLength: 40 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.boolean()),
      { maxKeys: 4 },
    ),
    payload: fc.string({ maxLength: 200 }),
  });
  fc.assert(
    fc.property(
      fc.array(messageArb, { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      (messages, cuts) => {
        const stream = Buffer.concat(messages.map((m) => encodeEventStreamMessage(m.headers, m.payload)));
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const decoder = new EventStreamDecoder();
        const decoded: EventStreamMessage[] = [];
        let start = 0;
        for (const point of [...points, stream.length]) {
          decoded.push(...decoder.push(stream.subarray(start, point)));
          start = point;
        }
        assert.equal(decoder.pendingBytes, 0);
        assert.deepEqual(
          decoded.map((m) => ({ headers: m.headers, payload: text(m.payload) })),
          messages.map((m) => ({ headers: { ...m.headers }, payload: m.payload })),
        );
      },
    ),
  );
});
