/**
 * The event messages of a Bedrock Runtime response stream (ConverseStream and
 * InvokeModelWithResponseStream alike: an AWS event stream, event-stream-decoder.ts), with what
 * both read the same way: an `exception` message (`:exception-type`) or an `error` message
 * (`:error-code`) ends the stream as a classified GatewayError, a framing fault as a malformed
 * answer, and each `event` message comes out as its `:event-type` and JSON payload.
 */
import type { GatewayError } from '../../errors/gateway-error.ts';
import { malformedAnswerError, upstreamGatewayError } from '../shared/upstream-error.ts';
import { classifyBedrockFailure } from './bedrock-error.ts';
import {
  EventStreamDecoder,
  EventStreamFramingError,
  type EventStreamMessage,
} from './event-stream-decoder.ts';

const PROVIDER = 'bedrock';

export interface BedrockEvent {
  type: string;
  payload: unknown;
}

export class BedrockEventFrames {
  readonly #frames = new EventStreamDecoder();

  /** Bytes in, the complete event messages out; throws a GatewayError on a failure message. */
  push(chunk: Uint8Array): BedrockEvent[] {
    let messages: EventStreamMessage[];
    try {
      messages = this.#frames.push(chunk);
    } catch (error) {
      if (error instanceof EventStreamFramingError)
        throw malformedAnswerError(PROVIDER, 'event stream', error.message);
      throw error;
    }
    const events: BedrockEvent[] = [];
    for (const message of messages) {
      const event = readMessage(message);
      if (event !== null) events.push(event);
    }
    return events;
  }

  /** Bytes of a message begun but not ended (a stream cut short). */
  get pendingBytes(): number {
    return this.#frames.pendingBytes;
  }
}

function readMessage(message: EventStreamMessage): BedrockEvent | null {
  const type = message.headers[':message-type'];
  if (type === 'exception') throw exception(message);
  if (type === 'error') {
    throw upstreamGatewayError(
      classifyBedrockFailure({
        status: 0,
        errorType: String(message.headers[':error-code']),
        message: undefined,
      }),
      { provider: PROVIDER, errorMessage: message.headers[':error-message'] },
    );
  }
  const eventType = message.headers[':event-type'];
  return typeof eventType === 'string' ? { type: eventType, payload: jsonPayload(message.payload) } : null;
}

function exception(message: EventStreamMessage): GatewayError {
  const payload = jsonPayload(message.payload) as { message?: unknown } | null;
  const text = typeof payload?.message === 'string' ? payload.message : undefined;
  const errorType = message.headers[':exception-type'];
  return upstreamGatewayError(
    classifyBedrockFailure({
      status: 0,
      errorType: typeof errorType === 'string' ? errorType : undefined,
      message: text,
    }),
    { provider: PROVIDER, exceptionType: errorType },
  );
}

/** A message's JSON payload; null when it has none. */
export function jsonPayload(payload: Uint8Array): unknown {
  const text = Buffer.from(payload).toString('utf8');
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw malformedAnswerError(PROVIDER, 'event payload', text.slice(0, 200));
  }
}
