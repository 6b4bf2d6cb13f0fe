import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CorsOrigins } from '../config.ts';

/**
 * Headers a browser script may read from a `/v1` answer (DESIGN.md section 5, Headers): the
 * request id to quote, the rate-limit state and the waits the official SDKs act on.
 */
const EXPOSED_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
  'retry-after',
  'x-should-retry',
  'x-gateway-cache',
  'x-switchyard-budget-resets-at',
  'x-switchyard-deployment',
  'x-switchyard-attempts',
  'x-switchyard-fallback-model',
].join(', ');

const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
/** How long a browser may reuse a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE_S = '600';

/**
 * CORS for browser clients on the surface it is registered in (`/v1` only: the admin API takes the
 * master key, which has no place in a browser). Registered before the surface's authentication, so
 * a preflight, which carries no credentials, is answered instead of refused. Headers go on the raw
 * response: the inference routes take it over (`reply.hijack()`) and write their own head, which
 * Node.js merges with headers set there.
 */
export function registerCors(scope: FastifyInstance, origins: CorsOrigins): void {
  scope.addHook('onRequest', (request, reply, done) => {
    const res = reply.raw;
    if (origins !== '*') res.setHeader('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined || !(origins === '*' || origins.includes(origin))) {
      done();
      return;
    }
    res.setHeader('access-control-allow-origin', origins === '*' ? '*' : origin);
    if (!isPreflight(request)) {
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      done();
      return;
    }
    res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
    res.setHeader('access-control-allow-headers', request.headers['access-control-request-headers'] ?? '');
    res.setHeader('access-control-max-age', PREFLIGHT_MAX_AGE_S);
    reply.code(204).send();
  });
}

function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
}
