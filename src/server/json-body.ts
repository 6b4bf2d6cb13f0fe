import type { Readable } from 'node:stream';
import { errorCodes, type FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { chunksText } from '../formats/heap-text.ts';
import { MAX_JSON_DEPTH, unsafeJson } from '../formats/json-depth.ts';
import { rememberClientBytes } from '../formats/request-text.ts';
import { isUtf8Chunks } from '../formats/utf8-chunks.ts';

const MESSAGES = {
  'too-deep': `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`,
  'prototype-key': 'The JSON body holds a `__proto__` key or a `constructor.prototype`, which are refused.',
} as const;

/**
 * `JSON.parse`, then one walk of the parsed body (formats/json-depth.ts `unsafeJson`) for the depth
 * bound (a 5,000-level body parses fine but overflowed the stack of code that walks it: a 500) and
 * the prototype-poisoning keys fastify's parser refused. That parser scanned the whole text with
 * two regular expressions before parsing it; the walk visits the keys alone, so a 4 MB prompt is
 * not read three times (docs/decisions/hot-path.md).
 *
 * The body is read here as the chunks it arrives in (`readBodyChunks`), not joined as fastify's
 * `parseAs: 'buffer'` joins it: the text is decoded from the chunks onto the V8 heap, and a native
 * route sends the chunks themselves upstream with the model edited (formats/request-text.ts), so a
 * megabyte prompt makes no buffer of its size outside the heap (docs/decisions/hot-path.md,
 * Request chunks never joined).
 *
 * An empty body with `content-type: application/json` is no body (Python's `openai` sends that for
 * `responses.delete`, many HTTP helpers for a body-less POST): the route then judges it, as it
 * would a request without the header. `text/plain` is not taken (fastify parses it by default,
 * and a JSON body sent as text then failed as "expected object"): it gets 415 saying what to send.
 */
export function registerJsonBodyParser(app: FastifyInstance, bodyLimitBytes: number): void {
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    readBodyChunks(payload, request.headers['content-length'], bodyLimitBytes, (error, chunks) => {
      if (error !== null) return done(error, undefined);
      const parsed = parseJsonChunks(chunks);
      if (parsed instanceof GatewayError) return done(parsed, undefined);
      done(null, parsed);
    });
  });
}

/** The body parsed, undefined when empty, or the error that refuses it. */
function parseJsonChunks(chunks: readonly Buffer[]): unknown {
  if (chunks.length === 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(chunksText(chunks));
  } catch (error) {
    return invalidJson(error);
  }
  const unsafe = unsafeJson(value, MAX_JSON_DEPTH);
  if (unsafe !== null) return new GatewayError('invalid_request', { message: MESSAGES[unsafe] });
  // Kept for a native route to send on with the model edited (formats/request-text.ts); only
  // valid UTF-8, which the decoding above did not alter.
  if (typeof value === 'object' && value !== null && isUtf8Chunks(chunks)) rememberClientBytes(value, chunks);
  return value;
}

/**
 * The body's chunks, with the checks fastify makes of a body it reads whole: a body that declares
 * or reaches more than `limit` bytes is refused as too large (413) as soon as it does, one whose
 * length is not the one it declared as a bad content-length (400), and a stream error keeps its
 * status or is a 400. fastify's own errors, so they are answered as its were. The limit is the
 * app's: no route sets a `bodyLimit` of its own, and no preParsing hook replaces the stream.
 */
function readBodyChunks(
  payload: Readable,
  declared: string | undefined,
  limit: number,
  done: (error: Error | null, chunks: Buffer[]) => void,
): void {
  const contentLength = Number(declared);
  if (contentLength > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), []);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  function onData(chunk: Buffer): void {
    received += chunk.length;
    if (received > limit) {
      stop();
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), []);
      return;
    }
    chunks.push(chunk);
  }
  function onEnd(error?: Error & { statusCode?: number }): void {
    stop();
    if (error != null) {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
      done(error, []);
    } else if (!Number.isNaN(contentLength) && received !== contentLength) {
      done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), []);
    } else {
      done(null, chunks);
    }
  }
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}

/** A body that does not parse: 400 in the gateway's words; the parser's own in the detail. */
function invalidJson(error: unknown): GatewayError {
  return new GatewayError('invalid_request', {
    message: 'The request body is not valid JSON.',
    detail: String(error),
  });
}
