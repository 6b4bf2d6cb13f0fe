import type { SseDecoder, SseMessage, StreamEvent, Usage } from '../types.ts';
import { malformedAnswerError, truncatedStreamError } from './upstream-error.ts';

/** The JSON payload of one SSE message; a payload that is not JSON is a malformed upstream answer. */
export function sseJson(message: SseMessage, provider: string): unknown {
  try {
    return JSON.parse(message.data);
  } catch (cause) {
    throw malformedAnswerError(provider, 'stream event', {
      data: message.data.slice(0, 200),
      cause: String(cause),
    });
  }
}

/**
 * What every decoder of an SSE upstream that passes its own events on shares: each message
 * becomes the events `decode` returns, nothing is read after the terminal event, and a stream
 * that ends without it is truncated, never a clean end (DESIGN.md section 4). A subclass decodes
 * one message and calls `end()` at the terminal one.
 */
export abstract class SseStreamDecoder implements SseDecoder {
  readonly framing = 'sse';
  readonly #terminal: string;
  #done = false;
  protected readonly provider: string;

  /** `terminal` names the event whose absence finish() reports (e.g. `message_stop`). */
  constructor(provider: string, terminal: string) {
    this.provider = provider;
    this.#terminal = terminal;
  }

  read(message: SseMessage): StreamEvent[] {
    return this.#done ? [] : this.decode(message);
  }

  finish(): StreamEvent[] {
    if (!this.#done) throw truncatedStreamError(this.provider, this.#terminal);
    return [];
  }

  abstract usage(): Usage | null;

  /** The events one SSE message becomes; throws a GatewayError on an error event or a malformed one. */
  protected abstract decode(message: SseMessage): StreamEvent[];

  /** The terminal event was read: later messages are ignored. */
  protected end(): void {
    this.#done = true;
  }
}
