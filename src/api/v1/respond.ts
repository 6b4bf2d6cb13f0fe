import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { UpstreamErrorMessages } from '../../errors/render-error.ts';
import { formatSseEvent } from '../../formats/sse.ts';
import type { AnswerJson, AttemptResult } from '../../pipeline/attempt-result.ts';
import type { CallContext, CallOutcome } from '../../pipeline/call-context.ts';
import type { StreamEvent } from '../../providers/types.ts';
import { toGatewayError } from '../../server/error-response.ts';
import { ClientAbortedError } from '../../upstream/upstream-failure.ts';

/**
 * Writes the call's answer: JSON, text, or the stream as SSE, to its end. A broken stream ends
 * with the format's error event; the outcome says what the client got.
 */
export async function writeAnswer(
  res: ServerResponse,
  ctx: CallContext,
  result: AttemptResult,
  messages: UpstreamErrorMessages,
): Promise<CallOutcome> {
  if (result.kind === 'json') {
    if (result.textContentType !== undefined && typeof result.answer === 'string') {
      writeText(res, ctx.responseHeaders, result.answer, result.textContentType);
    } else {
      writeJson(res, ctx.responseHeaders, result);
    }
    return { status: 200, error: null, streamBroken: false };
  }
  const format = ctx.endpoint.format;
  // Only a format's endpoints are streamable (Endpoint.streamable), so a stream always has one.
  if (format === undefined) throw new Error(`${ctx.endpoint.path} has no stream format`);
  startSse(res, ctx.responseHeaders);
  try {
    let first = true;
    // A client that leaves does not stop the reading: the upstream is read to its end (within the
    // attempt's drain bound, attempt-deadline.ts) so that its usage, or the text it sent, is billed
    // (limits/billed-usage.ts).
    for await (const batch of result.events) {
      if (res.destroyed) continue;
      await writeSseEvents(res, batch);
      if (first) {
        // Node sends a response's writes at the end of the tick: this turn lets the first event
        // leave before the rest of its upstream chunk is decoded (attempt.ts sends it alone).
        first = false;
        await nextTurn();
      }
    }
    if (res.destroyed) return { status: 499, error: null, streamBroken: false };
    return { status: 200, error: null, streamBroken: false };
  } catch (error) {
    if (error instanceof ClientAbortedError || res.destroyed)
      return { status: 499, error: null, streamBroken: true };
    const gatewayError = toGatewayError(error);
    await writeSseEvents(res, [format.errorEvent(gatewayError, messages)]);
    return { status: gatewayError.status, error: gatewayError, streamBroken: true };
  } finally {
    res.end();
  }
}

/**
 * Writes a JSON answer: `json` when the answer's text or bytes are already known, else `answer`
 * serialised. `answer` is read only then: a native answer passed on unparsed makes it on first read.
 * Parts are written in turn, not joined: Node.js corks the socket for the tick, so they leave in
 * one writev (docs/decisions/hot-path.md, Answer bytes written in parts).
 */
function writeJson(
  res: ServerResponse,
  headers: Record<string, string>,
  result: { answer: unknown; json?: AnswerJson },
): void {
  const body = result.json ?? JSON.stringify(result.answer);
  const parts = typeof body === 'string' || Buffer.isBuffer(body) ? [body] : body;
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': length });
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
  res.end(parts.at(-1));
}

/**
 * A text answer passed on as the upstream sent it (transcriptions in `text`, `srt` or `vtt`), with
 * its content type. The answer's other headers are the gateway's own, never the upstream's.
 */
function writeText(
  res: ServerResponse,
  headers: Record<string, string>,
  text: string,
  contentType: string,
): void {
  res.writeHead(200, {
    ...headers,
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * No `connection` header: Node.js sets it, `close` on the last answer a connection may carry
 * (HTTP_MAX_REQUESTS_PER_SOCKET) or while the server drains, so the client opens a new one.
 */
function startSse(res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
}

/**
 * Writes a batch of events (those of one upstream chunk) in one write, then waits for the socket
 * to drain when the client reads slower than the upstream sends. Stops at a response the client
 * closed. One write per batch, not per event (docs/decisions/hot-path.md, One write per batch).
 */
async function writeSseEvents(res: ServerResponse, events: readonly StreamEvent[]): Promise<void> {
  if (res.destroyed || events.length === 0) return;
  let text = '';
  for (const event of events) text += formatSseEvent(event);
  if (!res.write(text) && !res.destroyed) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}
