import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { sharedEnv } from '../helpers/shared-env.ts';
import { sqlOn } from '../helpers/sql.ts';
import { AdminClient, chat, errorOf, eventually } from './support.ts';

/**
 * Long enough that only the grace period (or an announced change) can end a cached entry: a
 * replaced secret refused on time proves the cache entry respects the grace expiry.
 */
const LONG_KEY_CACHE = { KEY_CACHE_TTL_MS: '600000' };

describe('POST /admin/keys/:id/rotate on two replicas (postgres + redis)', () => {
  let fake: OpenAIFake;
  let first: TestGateway;
  let second: TestGateway;
  let admin: AdminClient;
  const ok = async (gw: TestGateway, secret: string) =>
    assert.equal((await chat(gw, secret, 'm')).status, 200);
  const refused = async (gw: TestGateway, secret: string) => {
    const res = await chat(gw, secret, 'm');
    assert.equal(res.status, 401);
    assert.equal(errorOf(res).code, 'invalid_api_key');
  };
  const issue = async () => {
    const res = await admin.post('/admin/keys', { allowedModels: ['*'] });
    return { id: String(res.body.id), secret: String(res.body.key) };
  };

  before(async () => {
    fake = await new OpenAIFake().start();
    first = await startTestGateway({ env: LONG_KEY_CACHE });
    second = await startTestGateway({
      database: first.database,
      env: { ...sharedEnv(first), ...LONG_KEY_CACHE },
    });
    admin = new AdminClient(first);
    const res = await admin.post('/admin/deployments', {
      publicModel: 'm',
      provider: 'openai',
      upstreamModel: 'gpt-4o-mini',
      baseUrl: fake.baseUrl,
    });
    assert.equal(res.status, 201);
  });
  after(async () => {
    await second.close();
    await first.close();
    await fake.close();
  });

  it('without a grace period: the old secret is refused at once on both replicas, the new one works', async () => {
    const key = await issue();
    await ok(first, key.secret);
    await ok(second, key.secret);

    const rotated = await admin.post(`/admin/keys/${key.id}/rotate`);
    assert.equal(rotated.status, 200, rotated.raw);
    const secret = String(rotated.body.key);
    assert.match(secret, /^sk-sy-[A-Za-z0-9_-]{43,}$/);
    assert.notEqual(secret, key.secret);
    assert.equal(rotated.body.id, key.id);
    assert.equal(rotated.body.previousKeyExpiresAt, null);
    const [row] = await sqlOn(first.gateway.runtime.database.background)<{
      key_hash: Buffer;
      previous_key_hash: Buffer | null;
    }>`select key_hash, previous_key_hash from virtual_keys where id = ${key.id}`;
    assert.deepEqual(
      row.key_hash,
      createHash('sha256').update(secret).digest(),
      'only the SHA-256 is stored',
    );
    assert.equal(row.previous_key_hash, null);

    await refused(first, key.secret);
    await eventually(() => refused(second, key.secret));
    await ok(first, secret);
    await ok(second, secret);
    const read = await admin.get(`/admin/keys/${key.id}`);
    assert.ok(!read.raw.includes(secret), 'shown once');
  });

  it('with a grace period: the old secret works on both replicas, then is refused when it ends, even where cached', async () => {
    const key = await issue();
    const rotated = await admin.post(`/admin/keys/${key.id}/rotate`, { gracePeriodSeconds: 2 });
    assert.equal(rotated.status, 200, rotated.raw);
    const secret = String(rotated.body.key);
    const graceEnd = Date.parse(String(rotated.body.previousKeyExpiresAt));
    assert.ok(graceEnd > Date.now(), 'the answer says until when the old secret is accepted');

    // Both secrets work on both replicas, and the old one is now in the second replica's cache.
    await ok(first, key.secret);
    await ok(second, key.secret);
    await ok(first, secret);
    await ok(second, secret);

    // No change is announced when the grace period ends: the cache entry itself must end.
    await eventually(() => refused(second, key.secret), 10_000);
    await refused(first, key.secret);
    await ok(second, secret);
    assert.equal((await admin.get(`/admin/keys/${key.id}`)).body.previousKeyExpiresAt, null);
  });

  it('a second rotation ends the earlier grace period at once', async () => {
    const key = await issue();
    const once = await admin.post(`/admin/keys/${key.id}/rotate`, { gracePeriodSeconds: 3600 });
    await ok(second, key.secret);
    const twice = await admin.post(`/admin/keys/${key.id}/rotate`, { gracePeriodSeconds: 3600 });
    await eventually(() => refused(second, key.secret));
    await ok(second, String(once.body.key));
    await ok(second, String(twice.body.key));
  });

  it('answers 400 naming gracePeriodSeconds, and 404 for an unknown key', async () => {
    const key = await issue();
    for (const gracePeriodSeconds of [-1, 1.5, '10', 30 * 24 * 3600 + 1, null]) {
      const res = await admin.post(`/admin/keys/${key.id}/rotate`, { gracePeriodSeconds });
      assert.equal(res.status, 400, String(gracePeriodSeconds));
      assert.equal(errorOf(res).param, 'gracePeriodSeconds', String(gracePeriodSeconds));
    }
    const unknownField = await admin.post(`/admin/keys/${key.id}/rotate`, { grace: 10 });
    assert.equal(errorOf(unknownField).param, 'grace');
    await ok(first, key.secret);
    assert.equal((await admin.post('/admin/keys/key_nope/rotate', {})).status, 404);
    // A virtual key cannot rotate itself (or anything): the admin surface is the master key's.
    assert.equal((await admin.as(key.secret).post(`/admin/keys/${key.id}/rotate`, {})).status, 401);
  });
});
