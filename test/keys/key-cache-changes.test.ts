import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { credentialOf } from '../../src/auth/credentials.ts';
import { hashKeySecret, KEY_SECRET_PREFIX } from '../../src/auth/key-hash.ts';
import { CachedKeyResolver } from '../../src/keys/cached-key-resolver.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { createTestDatabase, migrateTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { connectSql } from '../helpers/sql.ts';

/**
 * Every key change used to drop every cached key on every replica (and a full cache dropped
 * everything too): with 100,000 active keys, one key disabled cost the fleet a database read per
 * active key. Now a change drops only what it makes stale. Rows are changed straight in the
 * database, so what a resolver answers shows whether it read them again.
 */
describe('the key cache after a change of one key or team', () => {
  let testDb: TestDatabase;
  let database: Database;
  let sql: ReturnType<typeof connectSql>;
  before(async () => {
    testDb = await createTestDatabase();
    await migrateTestDatabase(testDb.url);
    database = openDatabase({ url: testDb.url, poolMax: 2, timeoutMs: 5_000 });
    sql = connectSql(testDb.url, 1);
  });
  after(async () => {
    await sql.end();
    await database.close();
    await testDb.drop();
  });

  const newSecret = () => `${KEY_SECRET_PREFIX}${randomBytes(24).toString('base64url')}`;

  async function insertKey(teamId: string | null = null): Promise<{ id: string; secret: string }> {
    const secret = newSecret();
    const id = `key_${randomBytes(8).toString('hex')}`;
    await sql`insert into virtual_keys (id, name, key_hash, allowed_models, enabled, team_id)
      values (${id}, 'cached', ${hashKeySecret(secret)}, ${['*']}, true, ${teamId})`;
    return { id, secret };
  }

  const disableAll = () => sql`update virtual_keys set enabled = false`;
  const enabledOf = async (resolver: CachedKeyResolver, secret: string) =>
    (await resolver.resolve(credentialOf(secret)))?.enabled;

  it('drops the changed key only; the others stay cached', async () => {
    const [changed, other] = [await insertKey(), await insertKey()];
    const resolver = new CachedKeyResolver(database.db, 60_000);
    assert.equal(await enabledOf(resolver, changed.secret), true);
    assert.equal(await enabledOf(resolver, other.secret), true);
    await disableAll();
    resolver.forget(changed.id);
    assert.equal(await enabledOf(resolver, changed.secret), false, 'the changed key is read again');
    assert.equal(await enabledOf(resolver, other.secret), true, 'the other key is still the cached one');
  });

  it("a team's change drops the keys of that team", async () => {
    const teamId = `team_${randomBytes(8).toString('hex')}`;
    await sql`insert into teams (id, name, budget_cents) values (${teamId}, 't', 100)`;
    const member = await insertKey(teamId);
    const resolver = new CachedKeyResolver(database.db, 60_000);
    assert.equal((await resolver.resolve(credentialOf(member.secret)))?.team?.budgetCents, 100);
    await sql`update teams set budget_cents = 5 where id = ${teamId}`;
    resolver.forget(teamId);
    assert.equal((await resolver.resolve(credentialOf(member.secret)))?.team?.budgetCents, 5);
  });

  it('a change drops the unknown secrets, so a key created with one is served at once', async () => {
    const secret = newSecret();
    const resolver = new CachedKeyResolver(database.db, 60_000);
    assert.equal(await resolver.resolve(credentialOf(secret)), null);
    const id = `key_${randomBytes(8).toString('hex')}`;
    await sql`insert into virtual_keys (id, name, key_hash, allowed_models, enabled)
      values (${id}, 'late', ${hashKeySecret(secret)}, ${['*']}, true)`;
    resolver.forget(id);
    assert.equal((await resolver.resolve(credentialOf(secret)))?.id, id);
  });

  it('a full cache drops its oldest entry, not every entry', async () => {
    const keys = [await insertKey(), await insertKey(), await insertKey()];
    const resolver = new CachedKeyResolver(database.db, 60_000, 2);
    for (const key of keys) assert.equal(await enabledOf(resolver, key.secret), true);
    await sql`update virtual_keys set enabled = false where id = any(${keys.map((key) => key.id)})`;
    assert.equal(await enabledOf(resolver, keys[1].secret), true, 'the newer entries stayed');
    assert.equal(await enabledOf(resolver, keys[2].secret), true, 'the newer entries stayed');
    assert.equal(await enabledOf(resolver, keys[0].secret), false, 'the oldest was dropped and read again');
  });

  it('reads the keys of a burst in one statement, each answered with its own row', async () => {
    const keys = await Promise.all(Array.from({ length: 20 }, () => insertKey()));
    let reads = 0;
    const counted = database.db.withPlugin({
      transformQuery(args) {
        if (args.node.kind === 'SelectQueryNode') reads++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const resolver = new CachedKeyResolver(counted, 60_000);
    const unknown = newSecret();
    const answers = await Promise.all(
      [...keys.map((key) => key.secret), unknown].map((secret) => resolver.resolve(credentialOf(secret))),
    );
    assert.deepEqual(
      answers.map((key) => key?.id ?? null),
      [...keys.map((key) => key.id), null],
    );
    assert.equal(reads, 1, 'one statement for the burst');
  });
});
