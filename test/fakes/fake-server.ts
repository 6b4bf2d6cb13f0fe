/**
 * The shared base of the upstream fakes (DESIGN.md section 7: upstream providers are the only
 * fakes): a real HTTP server on port 0 that records every request (method, path, headers, parsed
 * body), answers through a provider-specific handler (with a FakeResponder, fake-responder.ts), and
 * takes failure injection:
 *
 *   fake.enqueue({ status, body, headers })   answer the next request with this instead
 *   fake.failNext(n, { status, body })         the same, n times
 *   fake.faultNextStream({ afterEvents, action })  the next streamed answer ends early: 'end' (clean
 *                                              close without the terminal event), 'destroy'
 *                                              (connection reset), 'hang' (never ends), or
 *                                              { raw } (write these raw bytes, then end)
 *   fake.latencyMs / fake.eventDelayMs         before the answer / between streamed events
 *   fake.aborted, fake.waitForAbort()          requests the client gave up on
 */
import { createHash } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import busboy from 'busboy';
import { type FakeReply, FakeResponder, type StreamFault } from './fake-responder.ts';

export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  bytes: Buffer;
}

export interface MultipartBody {
  kind: 'multipart';
  /** Text fields by name; a repeated name keeps its last value (all values are in `fieldList`). */
  fields: Record<string, string>;
  fieldList: Array<{ name: string; value: string }>;
  files: UploadedFile[];
}

export interface RecordedRequest {
  method: string;
  /** The raw request target: path and query as received. */
  url: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, a MultipartBody, the raw text for other types, or undefined when empty. */
  body: unknown;
  rawBody: string;
}

type Injection = { kind: 'reply'; reply: FakeReply } | { kind: 'fault'; fault: StreamFault };

export type FakeHandler<Recorded extends RecordedRequest = RecordedRequest> = (
  request: Recorded,
  responder: FakeResponder,
) => void | Promise<void>;

/**
 * `describe` adds what a provider's fake reads from a request (its model, its operation) to the
 * record, once, before the handler sees it.
 */
export class FakeServer<Recorded extends RecordedRequest = RecordedRequest> {
  readonly #server: Server;
  readonly #handler: FakeHandler<Recorded>;
  readonly #describe: (request: RecordedRequest) => Recorded;
  readonly #injections: Injection[] = [];
  readonly #events = new EventEmitter();
  readonly requests: Recorded[] = [];
  /** Milliseconds to wait before answering any request. */
  latencyMs = 0;
  /** Milliseconds to wait between SSE events. */
  eventDelayMs = 0;
  #aborted = 0;
  #url = '';

  readonly #scheme: 'http' | 'https';

  /**
   * `tls`: serve HTTPS with this key and certificate (test/fakes/tls-certificate.ts), for clients
   * that refuse a plain-HTTP endpoint (Microsoft Entra ID's authority).
   */
  constructor(
    handler: FakeHandler<Recorded>,
    describe: (request: RecordedRequest) => Recorded = (request) => request as Recorded,
    tls?: { key: string; cert: string },
  ) {
    this.#handler = handler;
    this.#describe = describe;
    const listener = (req: IncomingMessage, res: ServerResponse): void => {
      this.#serve(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`fake server failure: ${String(error)}`);
      });
    };
    this.#scheme = tls === undefined ? 'http' : 'https';
    this.#server = tls === undefined ? createServer(listener) : createTlsServer(tls, listener);
  }

  /** Origin of the running server, e.g. `http://127.0.0.1:39123` (`https://` with `tls`). */
  get url(): string {
    return this.#url;
  }

  get lastRequest(): Recorded | undefined {
    return this.requests.at(-1);
  }

  /** How many requests the client abandoned before the answer was complete. */
  get aborted(): number {
    return this.#aborted;
  }

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `${this.#scheme}://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  enqueue(reply: FakeReply): void {
    this.#injections.push({ kind: 'reply', reply });
  }

  failNext(count: number, reply: FakeReply): void {
    for (let i = 0; i < count; i++) this.enqueue(reply);
  }

  faultNextStream(fault: StreamFault): void {
    this.#injections.push({ kind: 'fault', fault });
  }

  /** Resolves at the next abandoned request (or at once if `count` were already seen). */
  async waitForAbort(count = this.#aborted + 1): Promise<void> {
    while (this.#aborted < count) await once(this.#events, 'aborted');
  }

  /** Forgets recorded requests, pending injections, delays and the abort count. */
  reset(): void {
    this.requests.length = 0;
    this.#aborted = 0;
    this.#injections.length = 0;
    this.latencyMs = 0;
    this.eventDelayMs = 0;
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let finished = false;
    res.on('finish', () => {
      finished = true;
    });
    const responder = new FakeResponder(res, this);
    res.on('close', () => {
      if (!finished && !responder.destroyedOnPurpose) {
        this.#aborted++;
        this.#events.emit('aborted');
      }
    });
    const request = this.#describe(await readRequest(req));
    this.requests.push(request);
    if (this.latencyMs > 0) await delay(this.latencyMs);
    if (res.destroyed) return;
    const injection = this.#injections.shift();
    if (injection?.kind === 'reply') {
      responder.send(injection.reply);
      return;
    }
    if (injection?.kind === 'fault') responder.fault = injection.fault;
    await this.#handler(request, responder);
  }
}

async function readRequest(req: IncomingMessage): Promise<RecordedRequest> {
  const url = new URL(req.url ?? '/', 'http://fake.invalid');
  const contentType = req.headers['content-type'] ?? '';
  const base = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
  };
  if (contentType.toLowerCase().startsWith('multipart/form-data')) {
    return { ...base, body: await readMultipart(req), rawBody: '' };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString('utf8');
  let body: unknown = rawBody === '' ? undefined : rawBody;
  if (rawBody !== '' && contentType.toLowerCase().includes('json')) {
    try {
      body = JSON.parse(rawBody);
    } catch {
      // Kept as text: the handler answers 400 as the real API would.
    }
  }
  return { ...base, body, rawBody };
}

async function readMultipart(req: IncomingMessage): Promise<MultipartBody> {
  const result: MultipartBody = { kind: 'multipart', fields: {}, fieldList: [], files: [] };
  // busboy may close before the last file stream has been read to its end: wait for both.
  const reads: Array<Promise<void>> = [];
  await new Promise<void>((resolve, reject) => {
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => {
      result.fields[name] = value;
      result.fieldList.push({ name, value });
    });
    parser.on('file', (field, stream, info) => {
      reads.push(
        buffer(stream).then((bytes) => {
          result.files.push({
            field,
            filename: info.filename ?? '',
            contentType: info.mimeType,
            size: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            bytes,
          });
        }),
      );
    });
    parser.on('close', resolve);
    parser.on('error', reject);
    req.pipe(parser);
  });
  await Promise.all(reads);
  return result;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whitespace-separated words: the fakes' deterministic token count. */
export function countWords(text: string): number {
  let count = 0;
  for (const word of text.split(/\s+/)) if (word !== '') count++;
  return count;
}
