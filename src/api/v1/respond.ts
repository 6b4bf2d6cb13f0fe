import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { formatSseEvent } from '../../formats/sse.ts';
import type { StreamEvent } from '../../providers/types.ts';

/** Writes a JSON answer: `json` when the answer's text is already known, else `answer` serialised. */
export function writeJson(
  res: ServerResponse,
  headers: Record<string, string>,
  answer: unknown,
  json?: string,
): void {
  const body = json ?? JSON.stringify(answer);
  res.writeHead(200, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * A text answer passed on as the upstream sent it (transcriptions in `text`, `srt` or `vtt`), with
 * its content type. The answer's other headers are the gateway's own, never the upstream's.
 */
export function writeText(
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
export function startSse(res: ServerResponse, headers: Record<string, string>): void {
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
export async function writeSseEvents(res: ServerResponse, events: readonly StreamEvent[]): Promise<void> {
  if (res.destroyed || events.length === 0) return;
  let text = '';
  for (const event of events) text += formatSseEvent(event);
  if (!res.write(text) && !res.destroyed) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}
