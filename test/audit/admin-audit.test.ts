import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EMBEDDED } from '../admin/support.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { type AuditRow, auditPage, auditRowOf, send } from './support.ts';

const UPSTREAM_SECRET = 'sk-upstream-audit-7f3a9c1e5b';

describe('audit of admin mutations', () => {
  let gw: TestGateway;
  let keySecret: string;
  /** Each admin mutation sent, with what its audit row must say. */
  const expected: {
    requestId: string;
    method: string;
    path: string;
    resourceId: string | null;
    status: number;
  }[] = [];

  async function mutate(
    method: string,
    path: string,
    body: unknown,
    resourceId: string | null,
    status: number,
  ) {
    const res = await send<{ id?: string; key?: string }>(gw, method, path, body);
    assert.equal(res.status, status, res.text);
    expected.push({
      requestId: res.requestId,
      method,
      path,
      resourceId: resourceId ?? res.body.id ?? null,
      status,
    });
    return res;
  }

  before(async () => {
    gw = await startTestGateway();
    const dep = await mutate(
      'POST',
      '/admin/deployments',
      {
        publicModel: 'audited',
        provider: 'openai',
        upstreamModel: 'gpt-4o-mini',
        apiKey: UPSTREAM_SECRET,
        baseUrl: 'http://127.0.0.1:9',
      },
      null,
      201,
    );
    const depId = String(dep.body.id);
    await mutate(
      'PATCH',
      `/admin/deployments/${depId}`,
      { weight: 3, apiKey: `${UPSTREAM_SECRET}-2` },
      depId,
      200,
    );
    const key = await mutate('POST', '/admin/keys', { name: 'audited', allowedModels: ['*'] }, null, 201);
    keySecret = String(key.body.key);
    const keyId = String(key.body.id);
    await mutate('PATCH', `/admin/keys/${keyId}`, { name: 'renamed' }, keyId, 200);
    const settings = await send(gw, 'GET', '/admin/router-settings');
    await mutate('PUT', '/admin/router-settings', settings.body, null, 200);
    // Refused: a bad field is a 400, and still an audit row; its rejected apiKey is no row's content.
    await mutate(
      'POST',
      '/admin/deployments',
      {
        publicModel: 'bad',
        provider: 'openai',
        upstreamModel: 'x',
        weight: -1,
        apiKey: `${UPSTREAM_SECRET}-3`,
      },
      null,
      400,
    );
    await mutate('DELETE', `/admin/keys/${keyId}`, undefined, keyId, 200);
    await mutate('DELETE', `/admin/deployments/${depId}`, undefined, depId, 200);
    await mutate('DELETE', `/admin/deployments/${depId}`, undefined, depId, 404);
  });
  after(async () => {
    await gw.close();
  });

  it('writes one row per admin mutation, successful or refused, with who, what and where from', async () => {
    for (const want of expected) {
      const row = await auditRowOf(gw, want.requestId);
      assert.deepEqual(
        {
          kind: row.kind,
          actor: row.actor,
          method: row.method,
          path: row.path,
          resourceId: row.resourceId,
          status: row.status,
          requestId: row.requestId,
        },
        { kind: 'admin_mutation', actor: 'master', ...want },
        JSON.stringify(row),
      );
      assert.equal(row.sourceAddress, '127.0.0.1');
      assert.ok(!Number.isNaN(Date.parse(row.at)));
      assert.equal(row.reason, null);
    }
    assert.ok(expected.some((want) => want.method === 'POST' && want.resourceId?.startsWith('dep_')));
    assert.ok(expected.some((want) => want.method === 'POST' && want.resourceId?.startsWith('key_')));
  });

  it('keeps reads and requests without the master key out of the trail', async () => {
    const read = await send(gw, 'GET', '/admin/deployments');
    const refused = await send(
      gw,
      'POST',
      '/admin/keys',
      { name: 'x', allowedModels: ['*'] },
      'sk-not-the-master',
    );
    assert.equal(refused.status, 401);
    // A later mutation is written after both would have been: then neither is there.
    const marker = await send(
      gw,
      'PUT',
      '/admin/router-settings',
      (await send(gw, 'GET', '/admin/router-settings')).body,
    );
    await auditRowOf(gw, marker.requestId);
    const all = await auditPage(gw, '?limit=500');
    const ids = new Set(all.body.data.map((row) => row.requestId));
    assert.ok(!ids.has(read.requestId));
    assert.ok(!ids.has(refused.requestId));
  });

  it('holds no secret and no body, in the table or in the answer', async () => {
    await auditRowOf(gw, expected.at(-1)?.requestId ?? '');
    const answer = await auditPage(gw, '?limit=500');
    const { connect } = await import('../records/support.ts');
    const sql = connect(gw);
    try {
      const stored = JSON.stringify(await sql`select * from audit_events`);
      for (const text of [stored, answer.text]) {
        for (const secret of [UPSTREAM_SECRET, keySecret, gw.masterKey, 'renamed', 'audited"']) {
          assert.ok(!text.includes(secret), `audit holds ${secret}`);
        }
      }
    } finally {
      await sql.end();
    }
  });

  it('filters by method, path prefix, resource id, status, kind and time', async () => {
    const rows = async (query: string): Promise<AuditRow[]> => {
      const res = await auditPage(gw, query);
      assert.equal(res.status, 200, res.text);
      return res.body.data;
    };
    await auditRowOf(gw, expected.at(-1)?.requestId ?? '');
    const deletes = await rows('?method=DELETE');
    assert.ok(deletes.length >= 3 && deletes.every((row) => row.method === 'DELETE'));
    const keys = await rows(`?path=${encodeURIComponent('/admin/keys')}`);
    assert.equal(keys.length, 3);
    assert.ok(keys.every((row) => row.path.startsWith('/admin/keys')));
    const depId = expected[0].resourceId ?? '';
    const ofDep = await rows(`?resourceId=${depId}`);
    assert.deepEqual(
      ofDep.map((row) => `${row.method} ${row.status}`),
      ['DELETE 404', 'DELETE 200', 'PATCH 200', 'POST 201'],
    );
    const refused = await rows('?status=400');
    assert.deepEqual(
      refused.map((row) => row.path),
      ['/admin/deployments'],
    );
    assert.equal((await rows('?kind=payload_access')).length, 0);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal((await rows(`?since=${encodeURIComponent(future)}`)).length, 0);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    assert.ok(
      (await rows(`?since=${encodeURIComponent(past)}&until=${encodeURIComponent(future)}`)).length >= 9,
    );
  });

  it('pages newest first with nextCursor, every row once', async () => {
    const all = (await auditPage(gw, '?limit=500')).body.data;
    const seen: AuditRow[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`;
      const page = await auditPage(gw, query);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.data.length <= 2);
      seen.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(
      seen.map((row) => row.id),
      all.map((row) => row.id),
    );
    const times = seen.map((row) => Date.parse(row.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
  });

  it('refuses malformed filters with a 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['?since=yesterday', 'since'],
      ['?until=2026-02-30T00:00:00Z', 'until'],
      ['?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 'until'],
      ['?status=700', 'status'],
      ['?method=TRACE', 'method'],
      ['?kind=login', 'kind'],
      ['?cursor=not-a-cursor', 'cursor'],
      ['?limit=0', 'limit'],
      ['?secret=1', 'secret'],
    ];
    for (const [query, param] of cases) {
      const res = await send<{ error: { code: string; param: string } }>(gw, 'GET', `/admin/audit${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.equal(res.body.error.param, param, query);
    }
  });

  it('is in the OpenAPI document', async () => {
    const doc = await send<{ paths: Record<string, Record<string, unknown>> }>(gw, 'GET', '/openapi.json');
    assert.ok(doc.body.paths['/admin/audit']?.get);
    assert.ok(doc.body.paths['/admin/logs/{requestId}/payload']?.get);
  });
});

describe('audit rows written at shutdown, in variant A and embedded', () => {
  it('records and lists a mutation on the embedded database', async () => {
    const gw = await startTestGateway(EMBEDDED);
    try {
      const res = await send(gw, 'POST', '/admin/keys', { name: 'embedded', allowedModels: ['*'] });
      assert.equal(res.status, 201, res.text);
      const row = await auditRowOf(gw, res.requestId);
      assert.equal(row.resourceId, (res.body as { id: string }).id);
      const page = await auditPage(gw, '?path=/admin/keys&since=2020-01-01T00:00:00Z&limit=1');
      assert.equal(page.status, 200, page.text);
      assert.equal(page.body.data[0].requestId, res.requestId);
    } finally {
      await gw.close();
    }
  });

  it('flushes a queued row when the gateway stops', async () => {
    const { createTestDatabase } = await import('../helpers/database.ts');
    const database = await createTestDatabase();
    try {
      const first = await startTestGateway({ database });
      const res = await send(first, 'POST', '/admin/keys', { name: 'late', allowedModels: ['*'] });
      assert.equal(res.status, 201);
      await first.close();
      const second = await startTestGateway({ database, env: { GATEWAY_VARIANT: 'a' } });
      try {
        const row = await auditRowOf(second, res.requestId);
        assert.equal(row.method, 'POST');
        assert.equal(row.status, 201);
        // Variant A serves the audit, but not the payload samples it has none of.
        const payload = await send(second, 'GET', `/admin/logs/${res.requestId}/payload?reason=x`);
        assert.equal(payload.status, 404);
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});
