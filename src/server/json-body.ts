import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { heapText } from '../formats/heap-text.ts';
import { MAX_JSON_DEPTH, unsafeJson } from '../formats/json-depth.ts';
import { rememberClientBytes } from '../formats/request-text.ts';

const MESSAGES = {
  'too-deep': `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`,
  'prototype-key': 'The JSON body holds a `__proto__` key or a `constructor.prototype`, which are refused.',
} as const;

/**
 * `JSON.parse`, then one walk of the parsed body (formats/json-depth.ts `unsafeJson`) for the depth
 * bound (a 5,000-level body parses fine but overflowed the stack of code that walks it: a 500) and
 * the prototype-poisoning keys fastify's parser refused. That parser scanned the whole text with
 * two regular expressions before parsing it; the walk visits the keys alone, so a 4 MB prompt is
 * not read three times (docs/decisions/hot-path.md). The text is decoded onto the V8 heap
 * (formats/heap-text.ts): a megabyte prompt decoded outside it brought a full collection.
 *
 * An empty body with `content-type: application/json` is no body (Python's `openai` sends that for
 * `responses.delete`, many HTTP helpers for a body-less POST): the route then judges it, as it
 * would a request without the header. `text/plain` is not taken (fastify parses it by default,
 * and a JSON body sent as text then failed as "expected object"): it gets 415 saying what to send.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(heapText(bytes));
    } catch (error) {
      return done(invalidJson(error));
    }
    const unsafe = unsafeJson(value, MAX_JSON_DEPTH);
    if (unsafe !== null) return done(new GatewayError('invalid_request', { message: MESSAGES[unsafe] }));
    // Kept for a native route to send on with the model edited (formats/request-text.ts); only
    // valid UTF-8, which the decoding above did not alter.
    if (typeof value === 'object' && value !== null && isUtf8(bytes)) rememberClientBytes(value, bytes);
    done(null, value);
  });
}

/** A body that does not parse: 400 in the gateway's words; the parser's own in the detail. */
function invalidJson(error: unknown): GatewayError {
  return new GatewayError('invalid_request', {
    message: 'The request body is not valid JSON.',
    detail: String(error),
  });
}
