import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import type { UpstreamRequest } from '../providers/types.ts';

export interface UpstreamTimeouts {
  connectMs: number;
  /** Time until the upstream's response headers. */
  firstByteMs: number;
  /** Gap allowed between body chunks; the total bound is enforced by the caller's signal. */
  bodyMs: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

const POOL_CONNECTIONS = 128;

/**
 * One undici `Agent` (a keep-alive `Pool` per upstream origin, kept by undici itself), pipelining
 * 1 (DESIGN.md section 1); never `fetch` on the hot path.
 */
export class UpstreamClient {
  readonly #agent: Agent;
  /** The largest answer body read whole (UPSTREAM_MAX_ANSWER_BYTES); streams are read event by event. */
  readonly maxAnswerBytes: number;

  constructor(connectMs: number, maxAnswerBytes: number) {
    this.#agent = new Agent({
      connections: POOL_CONNECTIONS,
      pipelining: 1,
      connectTimeout: connectMs,
      keepAliveTimeout: 30_000,
    });
    this.maxAnswerBytes = maxAnswerBytes;
  }

  async send(
    request: UpstreamRequest,
    signal: AbortSignal,
    timeouts: UpstreamTimeouts,
  ): Promise<UpstreamResponse> {
    const url = new URL(request.url);
    const body = request.body;
    const response = await this.#agent.request({
      origin: url.origin,
      method: request.method,
      path: url.pathname + url.search,
      headers: request.headers,
      body:
        body === null ? null : typeof body === 'string' || body instanceof Uint8Array ? body : body.stream,
      signal,
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: timeouts.bodyMs,
    });
    return { status: response.statusCode, headers: flattenHeaders(response.headers), body: response.body };
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
