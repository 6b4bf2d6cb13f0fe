import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedAlert {
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived: what the signature covers. */
  rawBody: string;
  receivedAtMs: number;
}

/** How the receiver answers one request: a status, after an optional delay. */
export interface ReceiverReply {
  status: number;
  delayMs?: number;
}

/** A local alert receiver on port 0 that records every request and answers 200 unless told otherwise. */
export class WebhookReceiver {
  readonly received: ReceivedAlert[] = [];
  readonly #replies: ReceiverReply[] = [];
  readonly #server: Server;

  constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.received.push({
          headers: request.headers,
          rawBody: Buffer.concat(chunks).toString('utf8'),
          receivedAtMs: performance.now(),
        });
        const reply = this.#replies.shift() ?? { status: 200 };
        setTimeout(() => response.writeHead(reply.status).end(), reply.delayMs ?? 0);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** A URL whose path holds a token, as many webhook URLs do: it must never be logged. */
  urlWithToken(token: string): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/hooks/${token}`;
  }

  /** Answers the next requests with these, in order. */
  reply(...replies: ReceiverReply[]): void {
    this.#replies.push(...replies);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
