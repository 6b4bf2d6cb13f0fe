import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../formats/json-depth.ts';

/**
 * fastify's own JSON parser (prototype-poisoning checks included), followed by the depth bound:
 * a 5,000-level body parses fine but overflowed the stack of code that walks it (a 500).
 *
 * An empty body with `content-type: application/json` is no body (Python's `openai` sends that for
 * `responses.delete`, many HTTP helpers for a body-less POST): the route then judges it, as it
 * would a request without the header. `text/plain` is not taken (fastify parses it by default,
 * and a JSON body sent as text then failed as "expected object"): it gets 415 saying what to send.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parse(request, body as string, (error, value) => {
      if (error) return done(error);
      if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
        return done(
          new GatewayError('invalid_request', {
            message: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`,
          }),
        );
      }
      done(null, value);
    });
  });
}
