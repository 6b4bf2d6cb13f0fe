import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../formats/json-depth.ts';

/**
 * fastify's own JSON parser (prototype-poisoning checks included), followed by the depth bound:
 * a 5,000-level body parses fine but overflowed the stack of code that walks it (a 500).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
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
