/**
 * Scenario (b): the thinnest proxy Node can be, run as its own process. node:http in, one undici
 * `Pool` out (the same client settings as the gateway's UpstreamClient), bodies streamed through
 * untouched. What the gateway does beyond this is what the gateway costs; what this costs is the
 * Node.js limit no gateway written in Node can beat.
 *
 * Environment: UPSTREAM_URL (origin of the fake), PORT (0). Prints `{"ready":true,"port":N}`.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { Pool } from 'undici';

/** RFC 9110 section 7.6.1: connection-specific fields are not forwarded by a proxy. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

const upstream = process.env.UPSTREAM_URL;
if (upstream === undefined) throw new Error('UPSTREAM_URL is required');
const pool = new Pool(upstream, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000 });

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const kept: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

/**
 * The answer's bytes to the client, each side's failure ending the other. Not `stream.pipeline`:
 * it aborts an AbortController when done, which builds a DOMException with a captured stack for
 * every call (about 75k instructions under callgrind), a cost the gateway does not pay.
 */
function relay(body: Readable, res: ServerResponse): void {
  body.on('error', () => res.destroy());
  res.on('close', () => {
    if (!body.readableEnded) body.destroy();
  });
  body.pipe(res);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  // The body is read whole before it is sent on, as the gateway does (it must parse it): streaming
  // an IncomingMessage through undici measured at a third of this rate, which would flatter the
  // gateway against an artificially slow "limit".
  const body = hasBody ? await buffer(req) : null;
  await pool
    .request({
      method: req.method as 'POST',
      path: req.url ?? '/',
      headers: endToEnd(req.headers),
      body,
    })
    .then(
      (answer) => {
        if (res.destroyed) {
          answer.body.dump().catch(() => {});
          return;
        }
        res.writeHead(answer.statusCode, endToEnd(answer.headers));
        relay(answer.body, res);
      },
      () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      },
    );
}

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  handle(req, res).catch(() => res.destroy());
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => void pool.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
