import { type SseMessage, SseParser } from '../../formats/sse.ts';
import type { StreamDecoder, StreamEvent, Usage } from '../types.ts';
import { truncatedStreamError } from './upstream-error.ts';

/**
 * The loop every decoder of an SSE upstream that passes its own events on shares: bytes become SSE
 * messages, each message becomes the events `read` returns, nothing is read after the terminal
 * event, and a stream that ends without it is truncated, never a clean end (DESIGN.md section 4).
 * A subclass reads one message and calls `end()` at the terminal one.
 */
export abstract class SseStreamDecoder implements StreamDecoder {
  readonly #parser = new SseParser();
  readonly #terminal: string;
  #done = false;
  protected readonly provider: string;

  /** `terminal` names the event whose absence finish() reports (e.g. `message_stop`). */
  constructor(provider: string, terminal: string) {
    this.provider = provider;
    this.#terminal = terminal;
  }

  push(chunk: Uint8Array): StreamEvent[] {
    return this.#decode(this.#parser.push(chunk));
  }

  finish(): StreamEvent[] {
    const events = this.#decode(this.#parser.end());
    if (!this.#done) throw truncatedStreamError(this.provider, this.#terminal);
    return events;
  }

  abstract usage(): Usage | null;

  /** The events one SSE message becomes; throws a GatewayError on an error event or a malformed one. */
  protected abstract read(message: SseMessage): StreamEvent[];

  /** The terminal event was read: later messages are ignored. */
  protected end(): void {
    this.#done = true;
  }

  #decode(messages: SseMessage[]): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const message of messages) {
      if (this.#done) break;
      events.push(...this.read(message));
    }
    return events;
  }
}
