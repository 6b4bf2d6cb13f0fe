import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { sharedEnv } from '../helpers/shared-env.ts';
import { sqlOn } from '../helpers/sql.ts';
import { AdminClient, chat, EMBEDDED, errorOf, eventually } from './support.ts';

type Json = Record<string, unknown>;

for (const storage of ['postgres', 'embedded'] as const) {
  describe(`/admin/keys (${storage})`, () => {
    let gw: TestGateway;
    let admin: AdminClient;
    let fake: OpenAIFake;
    const issue = (fields: Json = {}) => admin.post('/admin/keys', { allowedModels: ['*'], ...fields });

    before(async () => {
      fake = await new OpenAIFake().start();
      gw = await startTestGateway(storage === 'embedded' ? EMBEDDED : {});
      admin = new AdminClient(gw);
      for (const publicModel of ['alpha', 'beta']) {
        const res = await admin.post('/admin/deployments', {
          publicModel,
          provider: 'openai',
          upstreamModel: 'gpt-4o-mini',
          apiKey: 'sk-upstream',
          baseUrl: fake.baseUrl,
        });
        assert.equal(res.status, 201);
      }
    });
    after(async () => {
      await gw.close();
      await fake.close();
    });

    it('issues the secret once and stores only its SHA-256', async () => {
      const res = await issue({ name: 'ci', metadata: { team: 'search' } });
      assert.equal(res.status, 201);
      const secret = String(res.body.key);
      assert.match(secret, /^sk-sy-[A-Za-z0-9_-]{43,}$/, 'prefix and 32+ random bytes in base64url');
      assert.match(String(res.body.id), /^key_[a-z0-9]+$/);
      assert.equal(res.body.name, 'ci');
      assert.equal(res.body.spendCents, 0);
      assert.equal(res.body.enabled, true);
      assert.equal(res.body.expiresAt, null);
      assert.deepEqual(res.body.metadata, { team: 'search' });

      const read = await admin.get(`/admin/keys/${res.body.id}`);
      assert.ok(!('key' in read.body) && !read.raw.includes(secret), 'never shown again');
      const [row] = await sqlOn(gw.gateway.runtime.database.background)<{ key_hash: Buffer }>`
        select key_hash from virtual_keys where id = ${String(res.body.id)}`;
      assert.deepEqual(row.key_hash, createHash('sha256').update(secret).digest());
      assert.equal((await chat(gw, secret, 'alpha')).status, 200);
    });

    it('answers 400 naming the field', async () => {
      const cases: Array<[Json, string]> = [
        [{ allowedModels: undefined }, 'allowedModels'],
        [{ allowedModels: 'alpha' }, 'allowedModels'],
        [{ allowedModels: [''] }, 'allowedModels.0'],
        [{ rpmLimit: 0 }, 'rpmLimit'],
        [{ tpmLimit: 2.5 }, 'tpmLimit'],
        // Beyond the integer column: a 400, not a database error (regression: it was a 500).
        [{ tpmLimit: 2 ** 31 }, 'tpmLimit'],
        [{ budgetCents: -1 }, 'budgetCents'],
        [{ spendCents: 10 }, 'spendCents'],
        [{ expiresAt: 'tomorrow' }, 'expiresAt'],
        [{ metadata: [1] }, 'metadata'],
        [{ key: 'sk-sy-mine' }, 'key'],
      ];
      for (const [fields, param] of cases) {
        const res = await issue(fields);
        assert.equal(res.status, 400, JSON.stringify(fields));
        assert.equal(errorOf(res).param, param, JSON.stringify(fields));
      }
      const id = String((await issue()).body.id);
      assert.equal(errorOf(await admin.patch(`/admin/keys/${id}`, { spendCents: 0 })).param, 'spendCents');
    });

    it('pages through the list', async () => {
      const created: string[] = [];
      for (let i = 0; i < 3; i++) created.push(String((await issue({ name: `p${i}` })).body.id));
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`;
        const res = await admin.get<{ data: Json[]; nextCursor: string | null }>(`/admin/keys${query}`);
        assert.equal(res.status, 200);
        assert.ok(res.body.data.every((key) => !('key' in key)));
        seen.push(...res.body.data.map((key) => String(key.id)));
        cursor = res.body.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(
        seen.filter((id) => created.includes(id)),
        created,
      );
    });

    it('answers 404 for an unknown id', async () => {
      for (const res of [
        await admin.get('/admin/keys/key_nope'),
        await admin.patch('/admin/keys/key_nope', { name: 'x' }),
        await admin.delete('/admin/keys/key_nope'),
      ]) {
        assert.equal(res.status, 404);
      }
    });

    it('PATCH: absent fields stay, null clears', async () => {
      const res = await issue({
        name: 'limits',
        rpmLimit: 5,
        budgetCents: 100,
        expiresAt: '2999-01-01T00:00:00Z',
      });
      const id = String(res.body.id);
      const patched = await admin.patch(`/admin/keys/${id}`, {
        rpmLimit: null,
        expiresAt: null,
        tpmLimit: 1000,
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.rpmLimit, null);
      assert.equal(patched.body.expiresAt, null);
      assert.equal(patched.body.tpmLimit, 1000);
      assert.equal(patched.body.budgetCents, 100, 'absent = unchanged');
      assert.equal(patched.body.name, 'limits');
    });

    it('enforces allowedModels on /v1 with 403 model_not_allowed, and follows a PATCH at once', async () => {
      const res = await issue({ allowedModels: ['alpha'] });
      const secret = String(res.body.key);
      assert.equal((await chat(gw, secret, 'alpha')).status, 200);
      const denied = await chat(gw, secret, 'beta');
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error?.code, 'model_not_allowed');
      await admin.patch(`/admin/keys/${res.body.id}`, { allowedModels: ['alpha', 'beta'] });
      assert.equal((await chat(gw, secret, 'beta')).status, 200);
    });

    it('refuses disabled, deleted and expired keys with 401, from the next call on', async () => {
      const disabled = await issue();
      const disabledSecret = String(disabled.body.key);
      assert.equal((await chat(gw, disabledSecret, 'alpha')).status, 200, 'cached as usable');
      await admin.patch(`/admin/keys/${disabled.body.id}`, { enabled: false });
      assert.equal(errorOf(await chat(gw, disabledSecret, 'alpha')).code, 'invalid_api_key');
      await admin.patch(`/admin/keys/${disabled.body.id}`, { enabled: true });
      assert.equal((await chat(gw, disabledSecret, 'alpha')).status, 200);

      const deleted = await issue();
      assert.equal((await chat(gw, String(deleted.body.key), 'alpha')).status, 200);
      assert.equal((await admin.delete(`/admin/keys/${deleted.body.id}`)).status, 200);
      assert.equal((await chat(gw, String(deleted.body.key), 'alpha')).status, 401);
      assert.equal((await admin.get(`/admin/keys/${deleted.body.id}`)).status, 404);

      const expired = await issue({ expiresAt: '2001-01-01T00:00:00Z' });
      assert.equal((await chat(gw, String(expired.body.key), 'alpha')).status, 401);
      const later = await issue({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
      assert.equal((await chat(gw, String(later.body.key), 'alpha')).status, 200);
      await admin.patch(`/admin/keys/${later.body.id}`, { expiresAt: '2001-01-01T00:00:00+02:00' });
      assert.equal((await chat(gw, String(later.body.key), 'alpha')).status, 401);
    });

    it('refuses a virtual key on every admin endpoint with 401', async () => {
      const secret = String((await issue()).body.key);
      const asKey = admin.as(secret);
      for (const res of [
        await asKey.get('/admin/deployments'),
        await asKey.post('/admin/deployments', { publicModel: 'x', provider: 'openai', upstreamModel: 'y' }),
        await asKey.get('/admin/keys'),
        await asKey.post('/admin/keys', { allowedModels: ['*'] }),
        await asKey.get('/admin/router-settings'),
        await asKey.put('/admin/router-settings', {}),
      ]) {
        assert.equal(res.status, 401);
        assert.equal(errorOf(res).code, 'invalid_api_key');
      }
    });
  });
}

describe('/admin/keys across replicas (postgres + redis)', () => {
  let first: TestGateway;
  let second: TestGateway;
  let fake: OpenAIFake;
  before(async () => {
    fake = await new OpenAIFake().start();
    first = await startTestGateway();
    second = await startTestGateway({ database: first.database, env: sharedEnv(first) });
  });
  after(async () => {
    await second.close();
    await first.close();
    await fake.close();
  });

  it('disabling a key on one replica drops it from every replica cache', async () => {
    const admin = new AdminClient(first);
    await admin.post('/admin/deployments', {
      publicModel: 'm',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: fake.baseUrl,
    });
    const issued = await admin.post('/admin/keys', { allowedModels: ['*'] });
    const secret = String(issued.body.key);
    await eventually(async () => assert.equal((await chat(second, secret, 'm')).status, 200));
    await admin.patch(`/admin/keys/${issued.body.id}`, { enabled: false });
    await eventually(async () => assert.equal((await chat(second, secret, 'm')).status, 401));
  });
});
