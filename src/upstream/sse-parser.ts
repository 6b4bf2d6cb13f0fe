import { GatewayError } from '../errors/gateway-error.ts';
import type { SseMessage } from '../providers/types.ts';

/**
 * The longest SSE event (its data lines together, or a single line) an upstream may send, in
 * characters. Bounds what one event can hold in memory; docs/configuration.md (Upstream answers).
 */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * Incremental SSE parser: feed bytes as they arrive, get whole events back. Handles events split
 * across chunks, multi-line data, CRLF and comment lines, without regular expressions.
 *
 * Linear in its input: each chunk is scanned once. A line split across chunks is kept as the list
 * of its pieces and joined once, when its end arrives (a buffer re-scanned from its start on every
 * chunk made a 16 MB line cost seconds of CPU). An event or line longer than `maxEventChars` throws
 * a GatewayError (`upstream_error`) instead of growing without bound.
 */
export class SseParser {
  readonly #maxEventChars: number;
  #decoder = new TextDecoder();
  /** Pieces of the line not yet ended, in order. */
  #pending: string[] = [];
  #pendingChars = 0;
  /** The last chunk ended on '\r': a '\n' opening the next one belongs to that line end. */
  #skipLf = false;
  #event: string | undefined;
  #id: string | undefined;
  #data: string[] = [];
  #dataChars = 0;

  constructor(maxEventChars = MAX_SSE_EVENT_CHARS) {
    this.#maxEventChars = maxEventChars;
  }

  push(chunk: Uint8Array | string): SseMessage[] {
    const text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    const messages: SseMessage[] = [];
    let start = 0;
    if (this.#skipLf && text.charCodeAt(0) === 10) start = 1;
    this.#skipLf = false;
    // Line ends are found with indexOf, which scans far faster than a loop over every character
    // (docs/decisions/hot-path.md, SSE line ends found with indexOf); a chunk without '\r' (the
    // usual case) looks for it once. Each is searched again only once passed: linear in the chunk.
    let cr = text.indexOf('\r', start);
    let lf = text.indexOf('\n', start);
    for (;;) {
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      const i = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (i === -1) break;
      const message = this.#line(this.#take(text, start, i));
      if (message) messages.push(message);
      start = i + 1;
      if (i === cr) {
        if (start === text.length) this.#skipLf = true;
        else if (text.charCodeAt(start) === 10) start++;
      }
    }
    if (start < text.length) this.#keep(text.slice(start));
    return messages;
  }

  /** Flushes an event left without its terminating blank line (a stream cut short). */
  end(): SseMessage[] {
    const rest = this.push(this.#decoder.decode());
    if (this.#pendingChars > 0) this.#line(this.#take('', 0, 0));
    const last = this.#dispatch();
    return last ? [...rest, last] : rest;
  }

  /** The line that ends at `end` of `text`: the pieces kept from earlier chunks, then its own. */
  #take(text: string, start: number, end: number): string {
    if (this.#pending.length === 0) return text.slice(start, end);
    this.#keep(text.slice(start, end));
    const line = this.#pending.join('');
    this.#pending = [];
    this.#pendingChars = 0;
    return line;
  }

  #keep(piece: string): void {
    this.#pending.push(piece);
    this.#pendingChars += piece.length;
    this.#checkSize(this.#pendingChars);
  }

  #checkSize(lineChars: number): void {
    if (this.#dataChars + lineChars <= this.#maxEventChars) return;
    throw new GatewayError('upstream_error', {
      detail: { reason: `stream event longer than ${this.#maxEventChars} characters` },
    });
  }

  #line(line: string): SseMessage | null {
    if (line === '') return this.#dispatch();
    if (line.charCodeAt(0) === 58) return null; // ':' starts a comment
    this.#checkSize(line.length);
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.#data.push(value);
      this.#dataChars += value.length;
    } else if (field === 'event') this.#event = value;
    else if (field === 'id') this.#id = value;
    return null;
  }

  #dispatch(): SseMessage | null {
    if (this.#data.length === 0 && this.#event === undefined) return null;
    const message = { event: this.#event, data: this.#data.join('\n'), id: this.#id };
    this.#event = undefined;
    this.#data = [];
    this.#dataChars = 0;
    return message;
  }
}
