import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';

/**
 * Bodies up to this size are neither counted nor refused: ordinary calls never pay for the
 * bound, and a small call is served however many large bodies are in flight.
 */
export const LARGE_BODY_BYTES = 1_048_576;

/** `Retry-After` of a refused large body: the bodies holding the budget are usually done by then. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * The bytes of large request bodies this process holds at once (MAX_BODY_BYTES_IN_FLIGHT). A
 * parsed JSON body lives as its text, its objects and the upstream's copy for the whole call:
 * a burst of large bodies held many times their size (docs/operations.md, A burst of large request
 * bodies). A body is held from its headers until its answer
 * is sent (or the connection closes). One body is always admitted when none is held, so any body
 * within BODY_LIMIT_BYTES can be served.
 */
class BodyBytesInFlight {
  readonly #max: number;
  #held = 0;

  constructor(maxBytes: number) {
    this.#max = maxBytes;
  }

  tryHold(bytes: number): boolean {
    if (this.#held > 0 && this.#held + bytes > this.#max) return false;
    this.#held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }
}

/**
 * The bytes a request announces: its Content-Length, or the body limit for a chunked body
 * (its size is unknown until read); 0 without a body.
 */
function announcedBodyBytes(headers: IncomingHttpHeaders, bodyLimitBytes: number): number {
  const length = headers['content-length'];
  if (length !== undefined) return Number(length) || 0;
  return headers['transfer-encoding'] === undefined ? 0 : bodyLimitBytes;
}

/**
 * Refuses a large body with 503 `server_busy` and `Retry-After` (in the endpoint's shape) when it
 * would take the bodies in flight past `maxBytesInFlight`; before the body is read, so a refused
 * one never takes memory. A body over `bodyLimitBytes` is left to fastify's own 413.
 */
export function registerBodyAdmission(
  app: FastifyInstance,
  options: { maxBytesInFlight: number; bodyLimitBytes: number },
): void {
  const inFlight = new BodyBytesInFlight(options.maxBytesInFlight);
  app.addHook('onRequest', (request, reply, done) => {
    const bytes = announcedBodyBytes(request.headers, options.bodyLimitBytes);
    if (bytes <= LARGE_BODY_BYTES || bytes > options.bodyLimitBytes) return done();
    if (!inFlight.tryHold(bytes)) {
      return done(new GatewayError('server_busy', { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS }));
    }
    reply.raw.once('close', () => inFlight.release(bytes));
    done();
  });
}
