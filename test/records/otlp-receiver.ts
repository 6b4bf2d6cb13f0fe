import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

type Json = Record<string, unknown>;

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

/** A data point of a sum (`asDouble`) or of a histogram (`count`, `bucketCounts`). */
export interface OtlpDataPoint {
  attributes: OtlpAttribute[];
  asDouble?: number;
  asInt?: string | number;
  count?: string | number;
  bucketCounts?: (string | number)[];
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  events?: { name: string; attributes: OtlpAttribute[] }[];
  status?: { code?: number; message?: string };
}

/** A tiny OTLP/HTTP (JSON) collector on port 0: keeps every export it receives, by signal. */
export class OtlpReceiver {
  readonly traces: Json[] = [];
  readonly metrics: Json[] = [];
  readonly #server: Server;
  #url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const parsed = JSON.parse(body.toString('utf8')) as Json;
        if (req.url === '/v1/traces') this.traces.push(parsed);
        if (req.url === '/v1/metrics') this.metrics.push(parsed);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
  }

  get url(): string {
    return this.#url;
  }

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  spans(): OtlpSpan[] {
    return this.traces.flatMap((batch) =>
      (batch.resourceSpans as Json[]).flatMap((rs) =>
        (rs.scopeSpans as Json[]).flatMap((ss) => ss.spans as OtlpSpan[]),
      ),
    );
  }

  /** The data points of a metric in the last export (metrics are cumulative). */
  lastDataPoints(name: string): OtlpDataPoint[] {
    const last = this.metrics.at(-1);
    if (last === undefined) return [];
    return (last.resourceMetrics as Json[]).flatMap((rm) =>
      (rm.scopeMetrics as Json[]).flatMap((sm) =>
        (sm.metrics as Json[])
          .filter((m) => m.name === name)
          .flatMap((m) => ((m.sum ?? m.histogram) as { dataPoints: OtlpDataPoint[] }).dataPoints),
      ),
    );
  }

  metricNames(): Set<string> {
    return new Set(
      this.metrics.flatMap((batch) =>
        (batch.resourceMetrics as Json[]).flatMap((rm) =>
          (rm.scopeMetrics as Json[]).flatMap((sm) => (sm.metrics as Json[]).map((m) => String(m.name))),
        ),
      ),
    );
  }
}

/** An attribute's value, whatever its OTLP type. */
export function attribute(attributes: OtlpAttribute[] | undefined, key: string): unknown {
  const found = attributes?.find((a) => a.key === key)?.value;
  if (found === undefined) return undefined;
  if (found.intValue !== undefined) return Number(found.intValue);
  return found.stringValue ?? found.doubleValue ?? found.boolValue;
}
