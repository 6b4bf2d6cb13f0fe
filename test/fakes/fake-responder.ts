/**
 * How a fake's handler answers (see fake-server.ts): JSON, text, or a stream that honours the
 * injected fault and event delay. Streamed answers (SSE events, or a provider's own frames) go out
 * one event per write, the event loop turning between writes, so that a client sees real chunking.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatSseEvent } from '../../src/formats/sse.ts';
import type { StreamEvent } from '../../src/providers/types.ts';

export interface FakeReply {
  status: number;
  /** An object is sent as JSON; a string as it is (text/plain unless headers say otherwise). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface StreamFault {
  /** SSE events written before the fault. */
  afterEvents: number;
  action: 'end' | 'destroy' | 'hang' | { raw: string | Uint8Array };
}

export class FakeResponder {
  readonly #res: ServerResponse;
  readonly #server: { readonly eventDelayMs: number };
  fault: StreamFault | null = null;
  destroyedOnPurpose = false;

  constructor(res: ServerResponse, server: { readonly eventDelayMs: number }) {
    this.#res = res;
    this.#server = server;
  }

  send(reply: FakeReply): void {
    const isText = typeof reply.body === 'string';
    const payload =
      reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
    const headers: Record<string, string> = {
      'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json',
      ...reply.headers,
    };
    this.#res.writeHead(reply.status, headers);
    this.#res.end(payload);
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.send({ status, body, headers: { 'content-type': 'application/json', ...headers } });
  }

  text(status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
    this.send({ status, body, headers: { 'content-type': contentType } });
  }

  /** Writes the events one per write, then ends, unless a fault says otherwise. */
  async sse(events: StreamEvent[], headers: Record<string, string> = {}): Promise<void> {
    await this.frames(events.map(formatSseEvent), {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...headers,
    });
  }

  /** Writes already encoded events (SSE text, binary frames) one per write, then ends, unless a fault says otherwise. */
  async frames(frames: ReadonlyArray<string | Uint8Array>, headers: Record<string, string>): Promise<void> {
    const res = this.#res;
    res.writeHead(200, headers);
    res.flushHeaders();
    const fault = this.fault;
    const limit = fault === null ? frames.length : Math.min(fault.afterEvents, frames.length);
    for (let i = 0; i < limit; i++) {
      if (i > 0) await this.#betweenEvents();
      if (res.destroyed) return;
      res.write(frames[i]);
    }
    if (fault === null) {
      res.end();
      return;
    }
    // The events before the fault leave before it, as they would from a real upstream.
    if (limit > 0) await this.#betweenEvents();
    if (fault.action === 'hang' || res.destroyed) return;
    if (fault.action === 'destroy') {
      this.destroyedOnPurpose = true;
      res.destroy();
      return;
    }
    if (fault.action !== 'end') res.write(fault.action.raw);
    res.end();
  }

  /** The injected delay, or one turn of the event loop so that each write leaves on its own. */
  #betweenEvents(): Promise<void> {
    const ms = this.#server.eventDelayMs;
    return ms > 0 ? sleep(ms) : new Promise((resolve) => setImmediate(resolve));
  }
}
