import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import type { AbortSource } from '../pipeline/call-signal.ts';
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

/** How many upstream URLs keep their parsed origin and path: a deployment's few URLs each. */
const PARSED_URLS = 10_000;

/** An upstream URL as undici's `request` takes it. */
interface UrlTarget {
  origin: string;
  path: string;
}

/**
 * One undici `Agent` (a keep-alive `Pool` per upstream origin, kept by undici itself), pipelining
 * 1 (DESIGN.md section 1); never `fetch` on the hot path.
 */
export class UpstreamClient {
  readonly #agent: Agent;
  /**
   * Each URL sent to, parsed once: a WHATWG parse per call cost more than the rest of the send
   * (docs/decisions/hot-path.md, Upstream URLs parsed once). A deployment's URLs are few (one per
   * operation and stream mode); the map is emptied when it holds PARSED_URLS.
   */
  readonly #targets = new Map<string, UrlTarget>();
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
    signal: AbortSource,
    timeouts: UpstreamTimeouts,
  ): Promise<UpstreamResponse> {
    const target = this.#targetOf(request.url);
    const response = await this.#agent.request({
      origin: target.origin,
      method: request.method,
      path: target.path,
      ...wireBody(request),
      signal,
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: timeouts.bodyMs,
    });
    return { status: response.statusCode, headers: flattenHeaders(response.headers), body: response.body };
  }

  close(): Promise<void> {
    return this.#agent.close();
  }

  #targetOf(url: string): UrlTarget {
    let target = this.#targets.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
      if (this.#targets.size >= PARSED_URLS) this.#targets.clear();
      this.#targets.set(url, target);
    }
    return target;
  }
}

/**
 * The headers and body undici is given for `request`: parts go as an array, which undici writes
 * one after the other (its types omit iterables, which its request accepts), with their summed
 * length as `content-length` so that they are not sent chunked.
 */
export function wireBody(request: UpstreamRequest): {
  headers: Record<string, string>;
  body: string | Uint8Array | Readable | null;
} {
  const { headers, body } = request;
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) return { headers, body };
  if (body.kind === 'multipart') return { headers, body: body.stream };
  let length = 0;
  for (const part of body.parts) length += part.length;
  return {
    headers: { ...headers, 'content-length': String(length) },
    body: body.parts as unknown as Readable,
  };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
