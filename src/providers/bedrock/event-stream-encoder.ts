/**
 * Encoder of the `application/vnd.amazon.eventstream` framing, the mirror of event-stream-decoder.ts.
 * The gateway only reads event streams; this exists so tests and the Bedrock fake speak the real
 * framing with valid CRCs from one implementation.
 */
import { crc32 } from 'node:zlib';
import {
  EVENT_STREAM_OVERHEAD_BYTES,
  type EventStreamHeaderValue,
  EVENT_STREAM_HEADER_TYPES as TYPES,
} from './event-stream-decoder.ts';

/** Numbers are written as 32-bit integers, bigints as 64-bit, dates as millisecond timestamps. */
export function encodeEventStreamMessage(
  headers: Readonly<Record<string, EventStreamHeaderValue>>,
  payload: Uint8Array | string,
): Uint8Array {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => encodeHeader(name, value)),
  );
  const totalLength = EVENT_STREAM_OVERHEAD_BYTES + headerBytes.length + body.length;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(totalLength, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const withoutCrc = Buffer.concat([prelude, headerBytes, body]);
  const messageCrc = Buffer.alloc(4);
  messageCrc.writeUInt32BE(crc32(withoutCrc), 0);
  return new Uint8Array(Buffer.concat([withoutCrc, messageCrc]));
}

function encodeHeader(name: string, value: EventStreamHeaderValue): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  return Buffer.concat([Buffer.from([nameBytes.length]), nameBytes, encodeValue(value)]);
}

function encodeValue(value: EventStreamHeaderValue): Buffer {
  if (typeof value === 'boolean') return Buffer.from([value ? TYPES.boolTrue : TYPES.boolFalse]);
  if (typeof value === 'number') {
    const out = Buffer.alloc(5);
    out.writeUInt8(TYPES.integer, 0);
    out.writeInt32BE(value, 1);
    return out;
  }
  if (typeof value === 'bigint' || value instanceof Date) {
    const out = Buffer.alloc(9);
    out.writeUInt8(typeof value === 'bigint' ? TYPES.long : TYPES.timestamp, 0);
    out.writeBigInt64BE(typeof value === 'bigint' ? value : BigInt(value.getTime()), 1);
    return out;
  }
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
  const head = Buffer.alloc(3);
  head.writeUInt8(typeof value === 'string' ? TYPES.string : TYPES.byteArray, 0);
  head.writeUInt16BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
}

/** An `event` message as AWS services send them: `:message-type`, `:event-type`, `:content-type`, JSON payload. */
export function encodeEventMessage(eventType: string, payload: unknown): Uint8Array {
  return encodeEventStreamMessage(
    { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify(payload),
  );
}

/** An `exception` message: a modelled error, named by `:exception-type`, with a JSON `{ message }`. */
export function encodeExceptionMessage(exceptionType: string, message: string): Uint8Array {
  return encodeEventStreamMessage(
    { ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' },
    JSON.stringify({ message }),
  );
}
