import type { TestGateway } from '../helpers/gateway.ts';
import { connectSql, type TestSql } from '../helpers/sql.ts';

export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  /** Headers and body as received, for secret scans. */
  raw: string;
}

type Json = Record<string, unknown>;

/** An HTTP client for one gateway that remembers every answer it received (for secret scans). */
export class AdminClient {
  readonly #gw: TestGateway;
  readonly #token: string;
  readonly answers: string[] = [];

  constructor(gw: TestGateway, token = gw.masterKey) {
    this.#gw = gw;
    this.#token = token;
  }

  as(token: string): AdminClient {
    const other = new AdminClient(this.#gw, token);
    return Object.assign(other, { answers: this.answers }) as AdminClient;
  }

  get = <T = Json>(path: string) => this.send<T>('GET', path);
  post = <T = Json>(path: string, body?: unknown) => this.send<T>('POST', path, body);
  put = <T = Json>(path: string, body?: unknown) => this.send<T>('PUT', path, body);
  patch = <T = Json>(path: string, body?: unknown) => this.send<T>('PATCH', path, body);
  delete = <T = Json>(path: string) => this.send<T>('DELETE', path);

  async send<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
    const res = await fetch(`${this.#gw.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.#token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const raw = `${JSON.stringify(Object.fromEntries(res.headers))}\n${text}`;
    this.answers.push(raw);
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as T, raw };
  }
}

/** A chat call on /v1 with `token`. */
export async function chat(
  gw: TestGateway,
  token: string,
  model: string,
): Promise<ApiAnswer<{ error?: { code: string; message: string; param: string | null } }>> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello there' }] }),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), raw: text };
}

export function errorOf(answer: ApiAnswer): { code: string; param: string | null; message: string } {
  return (answer.body as { error: { code: string; param: string | null; message: string } }).error;
}

/** A direct connection to a test database, for checking what is stored. */
export function sqlFor(url: string): TestSql {
  return connectSql(url, 1);
}

export { eventually } from '../helpers/eventually.ts';

/**
 * Options for the embedded default. One pooled connection: pglite-socket's multiplexer queues each
 * protocol message on its own and keeps only transactions whole, so two connections' unnamed
 * extended-protocol statements (Parse ... Bind) can interleave and fail with "bind message supplies
 * N parameters, but prepared statement requires M" (seen when the record jobs run at start).
 */
export const EMBEDDED = { storage: 'embedded', redis: false, env: { DB_POOL_MAX: '1' } } as const;
