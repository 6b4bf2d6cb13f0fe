/**
 * Incremental decoder of the `application/vnd.amazon.eventstream` framing (Smithy "Amazon Event
 * Stream Specification"; AWS Transcribe/Lex "Event stream encoding"). A message is:
 *
 *   total length (u32 BE) | headers length (u32 BE) | prelude CRC32 (of the 8 bytes before)
 *   headers | payload | message CRC32 (of every byte before it)
 *
 * and each header is: name length (u8) | name (UTF-8) | value type (u8) | value.
 */
import { crc32 } from 'node:zlib';

export const EVENT_STREAM_HEADER_TYPES = {
  boolTrue: 0,
  boolFalse: 1,
  byte: 2,
  short: 3,
  integer: 4,
  long: 5,
  byteArray: 6,
  string: 7,
  timestamp: 8,
  uuid: 9,
} as const;

export type EventStreamHeaderValue = boolean | number | bigint | string | Uint8Array | Date;

export interface EventStreamMessage {
  headers: Record<string, EventStreamHeaderValue>;
  payload: Uint8Array;
}

/** Prelude (8) + prelude CRC (4) + message CRC (4). */
export const EVENT_STREAM_OVERHEAD_BYTES = 16;
const PRELUDE_BYTES = 12;
/** The specification's limits: 16 MiB per message, 128 KiB of headers. */
export const EVENT_STREAM_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
export const EVENT_STREAM_MAX_HEADERS_BYTES = 128 * 1024;

export type EventStreamFramingFault = 'prelude_crc' | 'message_crc' | 'length' | 'header';

/** The byte stream is not a valid event stream; `fault` names what failed. */
export class EventStreamFramingError extends Error {
  readonly fault: EventStreamFramingFault;

  constructor(fault: EventStreamFramingFault, message: string) {
    super(message);
    this.name = 'EventStreamFramingError';
    this.fault = fault;
  }
}

/** Feed bytes as they arrive; get whole, CRC-checked messages back. */
export class EventStreamDecoder {
  #buffer: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): EventStreamMessage[] {
    this.#buffer = this.#buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#buffer, chunk]);
    const messages: EventStreamMessage[] = [];
    let offset = 0;
    while (this.#buffer.length - offset >= PRELUDE_BYTES) {
      const totalLength = this.#readPrelude(offset);
      if (this.#buffer.length - offset < totalLength) break;
      messages.push(decodeMessage(this.#buffer.subarray(offset, offset + totalLength)));
      offset += totalLength;
    }
    // Copy the tail so the decoded messages do not pin the whole buffer.
    this.#buffer = offset === 0 ? this.#buffer : Buffer.from(this.#buffer.subarray(offset));
    return messages;
  }

  /** Bytes received that do not yet form a whole message; non-zero at the end means a cut stream. */
  get pendingBytes(): number {
    return this.#buffer.length;
  }

  /** Checks the prelude as soon as it is complete, so a corrupt length never makes us wait for 16 MiB. */
  #readPrelude(offset: number): number {
    const totalLength = this.#buffer.readUInt32BE(offset);
    const headersLength = this.#buffer.readUInt32BE(offset + 4);
    const expected = this.#buffer.readUInt32BE(offset + 8);
    if (crc32(this.#buffer.subarray(offset, offset + 8)) !== expected) {
      throw new EventStreamFramingError('prelude_crc', 'event stream prelude CRC mismatch');
    }
    if (
      totalLength < EVENT_STREAM_OVERHEAD_BYTES ||
      totalLength > EVENT_STREAM_MAX_MESSAGE_BYTES ||
      headersLength > EVENT_STREAM_MAX_HEADERS_BYTES ||
      headersLength > totalLength - EVENT_STREAM_OVERHEAD_BYTES
    ) {
      throw new EventStreamFramingError(
        'length',
        `event stream lengths out of range (${totalLength}, ${headersLength})`,
      );
    }
    return totalLength;
  }
}

function decodeMessage(message: Buffer): EventStreamMessage {
  const end = message.length - 4;
  if (crc32(message.subarray(0, end)) !== message.readUInt32BE(end)) {
    throw new EventStreamFramingError('message_crc', 'event stream message CRC mismatch');
  }
  const headersLength = message.readUInt32BE(4);
  const headersEnd = PRELUDE_BYTES + headersLength;
  return {
    headers: decodeHeaders(message.subarray(PRELUDE_BYTES, headersEnd)),
    payload: new Uint8Array(message.subarray(headersEnd, end)),
  };
}

function decodeHeaders(bytes: Buffer): Record<string, EventStreamHeaderValue> {
  const headers: Record<string, EventStreamHeaderValue> = {};
  let offset = 0;
  const need = (count: number): void => {
    if (offset + count > bytes.length)
      throw new EventStreamFramingError('header', 'event stream header truncated');
  };
  while (offset < bytes.length) {
    need(1);
    const nameLength = bytes.readUInt8(offset);
    offset += 1;
    need(nameLength + 1);
    const name = bytes.toString('utf8', offset, offset + nameLength);
    offset += nameLength;
    const type = bytes.readUInt8(offset);
    offset += 1;
    const [value, size] = decodeHeaderValue(bytes, offset, type, need);
    // defineProperty: a header named `__proto__` stays data, never a prototype.
    Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
    offset += size;
  }
  return headers;
}

function decodeHeaderValue(
  bytes: Buffer,
  offset: number,
  type: number,
  need: (count: number) => void,
): [EventStreamHeaderValue, number] {
  const types = EVENT_STREAM_HEADER_TYPES;
  switch (type) {
    case types.boolTrue:
      return [true, 0];
    case types.boolFalse:
      return [false, 0];
    case types.byte:
      need(1);
      return [bytes.readInt8(offset), 1];
    case types.short:
      need(2);
      return [bytes.readInt16BE(offset), 2];
    case types.integer:
      need(4);
      return [bytes.readInt32BE(offset), 4];
    case types.long:
      need(8);
      return [bytes.readBigInt64BE(offset), 8];
    case types.byteArray:
    case types.string: {
      need(2);
      const length = bytes.readUInt16BE(offset);
      need(2 + length);
      const raw = bytes.subarray(offset + 2, offset + 2 + length);
      return [type === types.string ? raw.toString('utf8') : new Uint8Array(raw), 2 + length];
    }
    case types.timestamp:
      need(8);
      return [new Date(Number(bytes.readBigInt64BE(offset))), 8];
    case types.uuid: {
      need(16);
      const hex = bytes.toString('hex', offset, offset + 16);
      return [
        `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
        16,
      ];
    }
    default:
      throw new EventStreamFramingError('header', `unknown event stream header type ${type}`);
  }
}
