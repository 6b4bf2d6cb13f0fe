import assert from 'node:assert/strict';
import type { AuditEventView as AuditRow } from '../../src/audit/audit-query.ts';
import type { TestGateway } from '../helpers/gateway.ts';

export type { AuditRow };

export interface Sent<T = Record<string, unknown>> {
  status: number;
  requestId: string;
  body: T;
  text: string;
  headers: Headers;
}

/** One request on a gateway with the master key (or `token`), answering its `x-request-id` too. */
export async function send<T = Record<string, unknown>>(
  gw: TestGateway,
  method: string,
  path: string,
  body?: unknown,
  token = gw.masterKey,
): Promise<Sent<T>> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const requestId = res.headers.get('x-request-id');
  assert.ok(requestId !== null);
  return {
    status: res.status,
    requestId,
    body: (text === '' ? {} : JSON.parse(text)) as T,
    text,
    headers: res.headers,
  };
}

export interface AuditPage {
  data: AuditRow[];
  nextCursor: string | null;
}

export function auditPage(gw: TestGateway, query = ''): Promise<Sent<AuditPage>> {
  return send<AuditPage>(gw, 'GET', `/admin/audit${query}`);
}

/** The audit row of an admin request, once the queue wrote it. */
export async function auditRowOf(gw: TestGateway, requestId: string): Promise<AuditRow> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = await auditPage(gw, '?limit=500');
    assert.equal(page.status, 200, page.text);
    const row = page.body.data.find((item) => item.requestId === requestId);
    if (row !== undefined) return row;
    if (Date.now() > deadline) assert.fail(`no audit row for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
