import type { SseDecoder, SseMessage, StreamDecoder, StreamEvent, Usage } from '../providers/types.ts';
import { SseParser } from './sse-parser.ts';

/** An upstream stream's bytes, as they arrive, made the events of its operation's wire format. */
export interface EventReader {
  push(chunk: Uint8Array): StreamEvent[];
  /** At the upstream's end: the closing events; throws a GatewayError when the stream ended short. */
  finish(): StreamEvent[];
  /** The usage the upstream reported so far (complete after finish()). */
  usage(): Usage | null;
}

/**
 * The reader of one call's upstream stream: the engine parses an SSE upstream's bytes itself and
 * hands its decoder one message at a time; a binary framing (Bedrock) is the decoder's own.
 */
export function eventReaderOf(decoder: StreamDecoder): EventReader {
  return decoder.framing === 'sse' ? new SseEventReader(decoder) : decoder;
}

/**
 * SSE bytes -> messages -> events. A message the decoder refuses (an error event, a malformed
 * one) after others of the same bytes were decoded does not take them with it: they are returned,
 * and the failure is thrown at the next push or at the end, so the client gets the content that
 * came before the error, then the error.
 */
class SseEventReader implements EventReader {
  readonly #parser = new SseParser();
  readonly #decoder: SseDecoder;
  #failure: unknown = null;

  constructor(decoder: SseDecoder) {
    this.#decoder = decoder;
  }

  push(chunk: Uint8Array): StreamEvent[] {
    if (this.#failure !== null) throw this.#failure;
    return this.#decode(this.#parser.push(chunk));
  }

  usage(): Usage | null {
    return this.#decoder.usage();
  }

  finish(): StreamEvent[] {
    if (this.#failure !== null) throw this.#failure;
    const last = this.#decode(this.#parser.end());
    if (this.#failure !== null) throw this.#failure;
    return [...last, ...this.#decoder.finish()];
  }

  #decode(messages: readonly SseMessage[]): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const message of messages) {
      try {
        const decoded = this.#decoder.read(message);
        for (const event of decoded) events.push(event);
      } catch (error) {
        if (events.length === 0) throw error;
        this.#failure = error;
        break;
      }
    }
    return events;
  }
}
