/**
 * The bench's fake upstream, run as its own process: an OpenAI-format `POST .../chat/completions`
 * that answers precomputed bytes after a fixed latency, as JSON or as SSE. node:http only, no
 * framework, so that it costs as little as an HTTP server can. `GET /__stats` counts the calls
 * (the cache-hit scenario checks that no call reached it). A path under `/n/<chunks>/` answers
 * `<chunks>` words (`/n/1000/v1/chat/completions`: a stream of 1,000 content events, or a JSON
 * answer of 1,000 words), so one fake serves the stream and body sizes of bench/streams.ts and
 * bench/bodies.ts; each size is built once, when first asked.
 *
 * Environment: PORT (0), FAKE_LATENCY_MS (0), FAKE_STREAM_CHUNKS (16), FAKE_CHUNK_INTERVAL_MS (0).
 * Prints one JSON line `{"ready":true,"port":N}` once listening.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildJsonAnswer, buildSseAnswer } from './fake-answers.ts';

const latencyMs = Number(process.env.FAKE_LATENCY_MS ?? 0);
const chunkIntervalMs = Number(process.env.FAKE_CHUNK_INTERVAL_MS ?? 0);
const defaultChunks = Number(process.env.FAKE_STREAM_CHUNKS ?? 16);
const SIZED_PATH = /^\/n\/(\d+)\//;
const jsonAnswers = new Map<number, Buffer>();
const sseAnswers = new Map<number, readonly Buffer[]>();
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

function chunksOf(url: string): number {
  const sized = SIZED_PATH.exec(url);
  return sized === null ? defaultChunks : Number(sized[1]);
}

function cached<T>(answers: Map<number, T>, chunks: number, build: (chunks: number) => T): T {
  let answer = answers.get(chunks);
  if (answer === undefined) {
    answer = build(chunks);
    answers.set(chunks, answer);
  }
  return answer;
}

async function writeStream(res: ServerResponse, chunks: number): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  for (const event of cached(sseAnswers, chunks, buildSseAnswer)) {
    if (res.destroyed) return;
    if (chunkIntervalMs > 0) await delay(chunkIntervalMs);
    res.write(event);
  }
  res.end();
}

async function answer(body: Buffer, chunks: number, res: ServerResponse): Promise<void> {
  stats.calls++;
  if (latencyMs > 0) await delay(latencyMs);
  if (body.includes(STREAM_FLAG)) {
    stats.streams++;
    await writeStream(res, chunks);
    return;
  }
  const json = cached(jsonAnswers, chunks, buildJsonAnswer);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': json.length });
  res.end(json);
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
    const body = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    answer(body, chunksOf(req.url!), res).catch(() => res.destroy());
  });
}

const server = createServer({ keepAliveTimeout: 60_000 }, handle);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
