/**
 * The bench's fake upstream, run as its own process: an OpenAI-format `POST .../chat/completions`
 * that answers precomputed bytes after a fixed latency, as JSON or as SSE. node:http only, no
 * framework, so that it costs as little as an HTTP server can. `GET /__stats` counts the calls
 * (the cache-hit scenario checks that no call reached it).
 *
 * Environment: PORT (0), FAKE_LATENCY_MS (0), FAKE_STREAM_CHUNKS (16), FAKE_CHUNK_INTERVAL_MS (0).
 * Prints one JSON line `{"ready":true,"port":N}` once listening.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildFakeAnswers } from './fake-answers.ts';

const latencyMs = Number(process.env.FAKE_LATENCY_MS ?? 0);
const chunkIntervalMs = Number(process.env.FAKE_CHUNK_INTERVAL_MS ?? 0);
const answers = buildFakeAnswers(Number(process.env.FAKE_STREAM_CHUNKS ?? 16));
const JSON_HEADERS = { 'content-type': 'application/json', 'content-length': answers.json.length };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
/**
 * Every body the fake receives is compact JSON (JSON.stringify on both sides), so a byte search
 * tells a streamed call apart without parsing: parsing would make the floor the fake's JSON cost.
 */
const STREAM_FLAG = Buffer.from('"stream":true');
const NOT_FOUND = JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } });

const stats = { calls: 0, streams: 0 };

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function writeStream(res: ServerResponse): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  for (const event of answers.sse) {
    if (res.destroyed) return;
    if (chunkIntervalMs > 0) await delay(chunkIntervalMs);
    res.write(event);
  }
  res.end();
}

async function answer(body: Buffer, res: ServerResponse): Promise<void> {
  stats.calls++;
  if (latencyMs > 0) await delay(latencyMs);
  if (body.includes(STREAM_FLAG)) {
    stats.streams++;
    await writeStream(res);
    return;
  }
  res.writeHead(200, JSON_HEADERS);
  res.end(answers.json);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'GET' && req.url === '/__stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(stats));
    return;
  }
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(NOT_FOUND);
    return;
  }
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    answer(parts.length === 1 ? parts[0] : Buffer.concat(parts), res).catch(() => res.destroy());
  });
}

const server = createServer({ keepAliveTimeout: 60_000 }, handle);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
