import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { openaiClient } from '../helpers/openai-client.ts';
import type { TestSql } from '../helpers/sql.ts';
import { admin, connect, createDeployment, eventually } from './support.ts';

const HEADER = 'x-switchyard-tags';

interface Operation {
  requestId: string;
  tags: string[];
}
interface UsageReport {
  data: { group: string | null; requests: number; inputTokens: number; outputTokens: number }[];
}
interface ErrorBody {
  type?: string;
  error: { type: string; code?: string; param?: string | null; message: string };
}

async function issueKey(gw: TestGateway, tags?: string[]): Promise<{ id: string; key: string }> {
  const res = await admin<{ id: string; key: string }>(gw, 'POST', '/admin/keys', {
    allowedModels: ['*'],
    ...(tags === undefined ? {} : { tags }),
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** A chat call through the official client; answers its request id. */
async function taggedChat(gw: TestGateway, key: string, tags: string | undefined): Promise<string> {
  const requestId = `tags-${randomUUID()}`;
  const headers: Record<string, string> = { 'x-request-id': requestId };
  if (tags !== undefined) headers[HEADER] = tags;
  await openaiClient(gw, key).chat.completions.create(
    { model: 'alpha', messages: [{ role: 'user', content: 'hello there' }] },
    { headers },
  );
  return requestId;
}

function post(gw: TestGateway, path: string, headers: Record<string, string>, body: unknown) {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('call tags (variant B): recorded, shown in /admin/logs, grouped in /admin/usage', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  const operation = (requestId: string) =>
    eventually(async () => {
      const res = await admin<{ data: Operation[] }>(gw, 'GET', `/admin/logs?requestId=${requestId}`);
      const [op] = res.body.data;
      return op !== undefined && (op as { status?: string }).status !== 'in_progress' ? op : undefined;
    });

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway();
    await createDeployment(gw, { publicModel: 'alpha', baseUrl: fake.baseUrl });
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  it("records the call's tags then the key's defaults, deduplicated, and filters /admin/logs by tag", async () => {
    const key = await issueKey(gw, ['team:search', 'env.prod']);
    const requestId = await taggedChat(gw, key.key, 'feature_x, team:search,run-42');
    assert.deepEqual((await operation(requestId)).tags, ['feature_x', 'team:search', 'run-42', 'env.prod']);

    const defaultsOnly = await taggedChat(gw, key.key, undefined);
    assert.deepEqual((await operation(defaultsOnly)).tags, ['team:search', 'env.prod']);

    const byTag = await admin<{ data: Operation[] }>(gw, 'GET', '/admin/logs?tag=run-42');
    assert.deepEqual(
      byTag.body.data.map((op) => op.requestId),
      [requestId],
    );
  });

  it('caps the merged tags at 10, the call its own first', async () => {
    const defaults = ['d1', 'd2', 'd3'];
    const key = await issueKey(gw, defaults);
    const own = Array.from({ length: 9 }, (_, i) => `c${i}`);
    const requestId = await taggedChat(gw, key.key, own.join(','));
    assert.deepEqual((await operation(requestId)).tags, [...own, 'd1']);
  });

  it('groups usage by tag: a call with two tags counts under each, untagged calls under null', async () => {
    const key = await issueKey(gw);
    const tagA = `ua-${randomUUID().slice(0, 8)}`;
    const tagB = `ub-${randomUUID().slice(0, 8)}`;
    const since = new Date(Date.now() - 1000).toISOString();
    const ids = [
      await taggedChat(gw, key.key, `${tagA},${tagB}`),
      await taggedChat(gw, key.key, tagB),
      await taggedChat(gw, gw.masterKey, undefined),
    ];
    for (const id of ids) await operation(id);
    const res = await admin<UsageReport>(
      gw,
      'GET',
      `/admin/usage?groupBy=tag&since=${encodeURIComponent(since)}`,
    );
    assert.equal(res.status, 200, res.text);
    const group = (name: string | null) => res.body.data.find((row) => row.group === name);
    assert.equal(group(tagA)?.requests, 1);
    assert.equal(group(tagB)?.requests, 2);
    assert.ok((group(null)?.requests ?? 0) >= 1, 'the untagged call');
    assert.equal(group(tagB)?.inputTokens, 2 * (group(tagA)?.inputTokens ?? Number.NaN));
  });

  it('refuses a bad tag, or more than 10, with 400 naming the header in the OpenAI shape', async () => {
    const key = await issueKey(gw);
    const cases = [
      'has space',
      'a,,b',
      'ok,bad/slash',
      'x'.repeat(65),
      Array.from({ length: 11 }, (_, i) => `t${i}`).join(','),
    ];
    for (const tags of cases) {
      const res = await post(
        gw,
        '/v1/chat/completions',
        { authorization: `Bearer ${key.key}`, [HEADER]: tags },
        { model: 'alpha', messages: [{ role: 'user', content: 'hi' }] },
      );
      assert.equal(res.status, 400, tags);
      const body = (await res.json()) as ErrorBody;
      assert.equal(body.error.type, 'invalid_request_error', tags);
      assert.equal(body.error.param, HEADER, tags);
      assert.match(body.error.message, /x-switchyard-tags/);
    }
    const client = openaiClient(gw, key.key);
    await assert.rejects(
      client.chat.completions.create(
        { model: 'alpha', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { [HEADER]: 'no spaces allowed' } },
      ),
      (error: { status?: number }) => error.status === 400,
    );
  });

  it('refuses a bad tag on /v1/messages in the Anthropic shape', async () => {
    const key = await issueKey(gw);
    const res = await post(
      gw,
      '/v1/messages',
      { 'x-api-key': key.key, 'anthropic-version': '2023-06-01', [HEADER]: 'not valid!' },
      { model: 'alpha', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    );
    assert.equal(res.status, 400);
    const body = (await res.json()) as ErrorBody;
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /x-switchyard-tags/);
  });

  it("validates a key's default tags on create and PATCH, naming the field", async () => {
    const cases: [unknown, string][] = [
      [['fine', 'not fine'], 'tags.1'],
      [[''], 'tags.0'],
      ['a,b', 'tags'],
      [Array.from({ length: 11 }, (_, i) => `t${i}`), 'tags'],
    ];
    for (const [tags, param] of cases) {
      const res = await admin<ErrorBody>(gw, 'POST', '/admin/keys', { allowedModels: ['*'], tags });
      assert.equal(res.status, 400, JSON.stringify(tags));
      assert.equal(res.body.error.param, param, JSON.stringify(tags));
    }
    const key = await issueKey(gw, ['one']);
    const patched = await admin<{ tags: string[] }>(gw, 'PATCH', `/admin/keys/${key.id}`, {
      tags: ['two', 'two', 'three'],
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.tags, ['two', 'three']);
    const bad = await admin<ErrorBody>(gw, 'PATCH', `/admin/keys/${key.id}`, { tags: ['a b'] });
    assert.equal(bad.body.error.param, 'tags.0');
    const requestId = await taggedChat(gw, key.key, undefined);
    assert.deepEqual((await operation(requestId)).tags, ['two', 'three'], 'the PATCH reaches the next call');
  });
});

describe('call tags (variant A): recorded in request_logs', () => {
  let fake: OpenAIFake;
  let gw: TestGateway;
  let sql: TestSql;

  before(async () => {
    fake = await new OpenAIFake().start();
    gw = await startTestGateway({ env: { GATEWAY_VARIANT: 'a' } });
    sql = connect(gw);
    await createDeployment(gw, { publicModel: 'alpha', baseUrl: fake.baseUrl });
  });
  after(async () => {
    await sql.end();
    await gw.close();
    await fake.close();
  });

  it("stores the call's tags and the key's defaults on its request_logs row", async () => {
    const key = await issueKey(gw, ['cost-center:42']);
    const requestId = await taggedChat(gw, key.key, 'batch,nightly');
    const row = await eventually(async () => {
      const [found] = await sql<{
        tags: string[];
      }>`select tags from request_logs where request_id = ${requestId}`;
      return found;
    });
    assert.deepEqual(row.tags, ['batch', 'nightly', 'cost-center:42']);
  });
});
