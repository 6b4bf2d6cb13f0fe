import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { connectSql, type TestSql } from '../helpers/sql.ts';

type Json = Record<string, unknown>;

/** An answer as the test reads it. */
export interface Answer<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

async function send<T>(url: string, init: RequestInit): Promise<Answer<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = {};
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = { text };
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}

/** `GET`/`POST` on the admin surface with the master key. */
export function admin<T = Json>(
  gw: { url: string; masterKey: string },
  method: string,
  path: string,
  body?: unknown,
) {
  return send<T>(`${gw.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gw.masterKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export async function createDeployment(
  gw: { url: string; masterKey: string },
  fields: Json & { publicModel: string; baseUrl: string },
): Promise<string> {
  const res = await admin<{ id: string }>(gw, 'POST', '/admin/deployments', {
    provider: 'openai',
    upstreamModel: 'gpt-4o-mini',
    apiKey: 'sk-upstream-records',
    ...fields,
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

export async function createKey(gw: {
  url: string;
  masterKey: string;
}): Promise<{ id: string; key: string }> {
  const res = await admin<{ id: string; key: string }>(gw, 'POST', '/admin/keys', {
    name: 'records',
    allowedModels: ['*'],
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export interface ChatOptions {
  token: string;
  model: string;
  content?: string;
  requestId?: string;
  stream?: boolean;
}

/** One chat call on /v1. */
export function chat(gw: { url: string }, options: ChatOptions): Promise<Answer> {
  return send(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${options.token}`,
      'content-type': 'application/json',
      ...(options.requestId === undefined ? {} : { 'x-request-id': options.requestId }),
    },
    body: JSON.stringify({
      model: options.model,
      messages: [{ role: 'user', content: options.content ?? 'hello there' }],
      ...(options.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    }),
  });
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms: ${String(last ?? '')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A direct connection to a test gateway's database. */
export function connect(gw: TestGateway | { database: { url: string } | undefined }): TestSql {
  assert.ok(gw.database !== undefined);
  return connectSql(gw.database.url);
}

export interface OperationRow {
  id: string;
  request_id: string;
  status: string;
  http_status: number | null;
  error_code: string | null;
  key_id: string | null;
  public_model: string;
  deployment_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_cents: number;
  prompt: string | null;
  attempt_count: number;
}

/** The operation of a request id once it reached `status` (polls: records are written asynchronously). */
export function operationOf(sql: TestSql, requestId: string, status?: string): Promise<OperationRow> {
  return eventually(async () => {
    const [row] = await sql<OperationRow>`select * from gateway_operations where request_id = ${requestId}`;
    return row !== undefined && (status === undefined || row.status === status) ? row : undefined;
  });
}

/**
 * Installs a trigger that logs every insert and update of `gateway_operations` and `request_logs`
 * into `row_versions` (id, op, status): how many times the database wrote each record, and in which
 * state.
 */
export async function installRowVersions(sql: TestSql): Promise<void> {
  await sql.unsafe(`
create table row_versions (seq bigserial primary key, id text not null, op text not null, status text not null);
create function log_row_version() returns trigger language plpgsql as $$
begin
  insert into row_versions (id, op, status) values (new.id, tg_op, new.status::text);
  return new;
end $$;
create trigger gateway_operations_versions after insert or update on gateway_operations
  for each row execute function log_row_version();
create trigger request_logs_versions after insert or update on request_logs
  for each row execute function log_row_version();`);
}
