import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';

/**
 * The deepest nesting of objects and arrays a JSON body may have. Far above any real request (a
 * tool's JSON schema is a few levels), far below what recursive code downstream (translators,
 * canonical JSON, the database driver) can walk without overflowing the stack.
 */
export const MAX_JSON_DEPTH = 128;

/** True when `value` nests objects and arrays deeper than `maxDepth`; iterative, so it cannot overflow. */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxDepth) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

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
