import type { StreamEvent } from '../types.ts';

/** One raw server-sent event (WHATWG HTML, "Server-sent events": event stream interpretation). */
export interface SseMessage {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/**
 * Incremental SSE parser: feed bytes as they arrive, get whole events back. Handles events split
 * across chunks, multi-line data, CRLF and comment lines, without regular expressions.
 */
export class SseParser {
  #decoder = new TextDecoder();
  #buffer = '';
  #event: string | undefined;
  #id: string | undefined;
  #data: string[] = [];

  push(chunk: Uint8Array | string): SseMessage[] {
    this.#buffer += typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    const messages: SseMessage[] = [];
    let start = 0;
    for (;;) {
      const newline = this.#nextLineEnd(start);
      if (newline === -1) break;
      const line = this.#buffer.slice(start, newline);
      start = newline + (this.#buffer[newline] === '\r' && this.#buffer[newline + 1] === '\n' ? 2 : 1);
      const message = this.#line(line);
      if (message) messages.push(message);
    }
    this.#buffer = this.#buffer.slice(start);
    return messages;
  }

  /** Flushes an event left without its terminating blank line (a stream cut short). */
  end(): SseMessage[] {
    const rest = this.push(this.#decoder.decode());
    if (this.#buffer.length > 0) {
      const line = this.#buffer;
      this.#buffer = '';
      this.#line(line);
    }
    const last = this.#dispatch();
    return last ? [...rest, last] : rest;
  }

  #nextLineEnd(from: number): number {
    for (let i = from; i < this.#buffer.length; i++) {
      const c = this.#buffer.charCodeAt(i);
      // A lone trailing '\r' may be the first half of '\r\n': wait for the next chunk.
      if (c === 13) return i + 1 < this.#buffer.length ? i : -1;
      if (c === 10) return i;
    }
    return -1;
  }

  #line(line: string): SseMessage | null {
    if (line === '') return this.#dispatch();
    if (line.charCodeAt(0) === 58) return null; // ':' starts a comment
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id') this.#id = value;
    return null;
  }

  #dispatch(): SseMessage | null {
    if (this.#data.length === 0 && this.#event === undefined) return null;
    const message = { event: this.#event, data: this.#data.join('\n'), id: this.#id };
    this.#event = undefined;
    this.#data = [];
    return message;
  }
}

/** The `[DONE]` sentinel OpenAI sends as the last data line of a stream. */
export const SSE_DONE = '[DONE]';

/** Serialises one event in an endpoint's format; `data` is JSON-encoded unless it is `[DONE]`. */
export function formatSseEvent(event: StreamEvent): string {
  const data = event.data === SSE_DONE ? SSE_DONE : JSON.stringify(event.data);
  return event.event === undefined ? `data: ${data}\n\n` : `event: ${event.event}\ndata: ${data}\n\n`;
}
