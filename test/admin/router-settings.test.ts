import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryCacheStore } from '../../src/cache/memory-cache-store.ts';
import { createLogger } from '../../src/diagnostics/logger.ts';
import {
  DEFAULT_ROUTER_SETTINGS,
  RouterSettingsStore,
  routerSettingsSchema,
} from '../../src/router/router-settings.ts';
import { type Database, openDatabase } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { sharedEnv } from '../helpers/shared-env.ts';
import { sqlOn, type TestSql } from '../helpers/sql.ts';
import { AdminClient, EMBEDDED, errorOf, eventually } from './support.ts';

const CUSTOM = {
  strategy: 'least-busy',
  cooldown: { failureThreshold: 5, windowMs: 30_000, durationMs: 10_000 },
  retries: { maxAttempts: 3, backoffMs: 0 },
  timeouts: { connectMs: 1_000, firstByteMs: 20_000, totalMs: 60_000, drainAfterClientLeftMs: 5_000 },
  fallbacks: {
    general: { 'gpt-4o': ['claude-sonnet', 'gemini-pro'] },
    context_window: { 'gpt-4o-mini': ['gpt-4o'] },
    content_policy: {},
  },
};

for (const storage of ['postgres', 'embedded'] as const) {
  describe(`/admin/router-settings (${storage})`, () => {
    let gw: TestGateway;
    let admin: AdminClient;
    before(async () => {
      gw = await startTestGateway(storage === 'embedded' ? EMBEDDED : {});
      admin = new AdminClient(gw);
    });
    after(() => gw.close());

    it('answers the documented defaults before anything is saved', async () => {
      const res = await admin.get('/admin/router-settings');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, DEFAULT_ROUTER_SETTINGS);
    });

    it('PUT stores the settings, answers them, and they are in force on this replica at once', async () => {
      const res = await admin.put('/admin/router-settings', CUSTOM);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, CUSTOM);
      assert.deepEqual((await admin.get('/admin/router-settings')).body, CUSTOM);
      const [row] = await sqlOn(gw.gateway.runtime.database.background)<{ settings: unknown }>`
        select settings from router_settings where id = 1`;
      assert.deepEqual(row.settings, CUSTOM);
    });

    it('PUT replaces the whole settings: an absent field takes its default', async () => {
      const res = await admin.put('/admin/router-settings', {
        strategy: 'lowest-latency',
        retries: { maxAttempts: 4 },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        ...DEFAULT_ROUTER_SETTINGS,
        strategy: 'lowest-latency',
        retries: { ...DEFAULT_ROUTER_SETTINGS.retries, maxAttempts: 4 },
      });
    });

    it('answers 400 naming the field, and keeps the settings in force', async () => {
      const before = (await admin.get('/admin/router-settings')).body;
      const cases: Array<[unknown, string]> = [
        [{ strategy: 'random' }, 'strategy'],
        [{ cooldown: { failureThreshold: 0 } }, 'cooldown.failureThreshold'],
        [{ cooldown: { windowMs: 1.5 } }, 'cooldown.windowMs'],
        [{ retries: { maxAttempts: 0 } }, 'retries.maxAttempts'],
        [{ retries: { backoffMs: -1 } }, 'retries.backoffMs'],
        [{ timeouts: { firstByteMs: 50_000, totalMs: 10_000 } }, 'timeouts.firstByteMs'],
        [{ fallbacks: { general: { a: 'b' } } }, 'fallbacks.general.a'],
        [{ fallbacks: { general: { a: ['b', 'a'] } } }, 'fallbacks.general.a.1'],
        [{ fallbacks: { general: { a: ['b', 'b'] } } }, 'fallbacks.general.a'],
        [{ fallbacks: { rate_limit: {} } }, 'fallbacks.rate_limit'],
        [{ extra: 1 }, 'extra'],
      ];
      for (const [body, param] of cases) {
        const res = await admin.put('/admin/router-settings', body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(errorOf(res).param, param, JSON.stringify(body));
      }
      assert.deepEqual((await admin.get('/admin/router-settings')).body, before);
    });
  });
}

describe('/admin/router-settings across replicas (postgres + redis)', () => {
  let first: TestGateway;
  let second: TestGateway;
  before(async () => {
    first = await startTestGateway();
    second = await startTestGateway({ database: first.database, env: sharedEnv(first) });
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  it('a PUT on one replica is in force on every replica', async () => {
    assert.equal((await new AdminClient(first).put('/admin/router-settings', CUSTOM)).status, 200);
    await eventually(async () =>
      assert.deepEqual((await new AdminClient(second).get('/admin/router-settings')).body, CUSTOM),
    );
  });

  it('a replica started later loads the stored settings', async () => {
    const third = await startTestGateway({
      database: first.database,
      env: { MASTER_KEY: first.env.MASTER_KEY },
    });
    try {
      assert.deepEqual((await new AdminClient(third).get('/admin/router-settings')).body, CUSTOM);
    } finally {
      await third.close();
    }
  });
});

describe('RouterSettingsStore', () => {
  let database: TestDatabase;
  let db: Database;
  let sql: TestSql;
  const cache = new MemoryCacheStore();
  const logger = createLogger('silent');
  before(async () => {
    database = await createTestDatabase();
    db = openDatabase({ url: database.url, poolMax: 2, timeoutMs: 5_000 });
    sql = sqlOn(db.background);
    await migrate(db.background);
  });
  after(async () => {
    await db.close();
    await database.drop();
  });

  it('current() is a frozen snapshot, replaced when a change is announced', async () => {
    const reader = new RouterSettingsStore(db.db, cache, logger);
    const writer = new RouterSettingsStore(db.db, cache, logger);
    await reader.load();
    const stop = await reader.watch();
    try {
      const initial = reader.current();
      assert.deepEqual(initial, DEFAULT_ROUTER_SETTINGS);
      assert.ok(Object.isFrozen(initial) && Object.isFrozen(initial.fallbacks.general));
      await writer.save(routerSettingsSchema.parse(CUSTOM));
      await eventually(() => assert.deepEqual(reader.current(), CUSTOM));
      assert.ok(Object.isFrozen(reader.current().fallbacks.general['gpt-4o']));
      assert.deepEqual(initial, DEFAULT_ROUTER_SETTINGS, 'the old snapshot is left as it was');
    } finally {
      await stop();
    }
  });

  it('keeps the settings in force when the stored value no longer validates', async () => {
    await sql`update router_settings set settings = ${JSON.stringify({ strategy: 'round-robin' })}::jsonb where id = 1`;
    const store = new RouterSettingsStore(db.db, cache, logger);
    await store.load();
    assert.deepEqual(store.current(), DEFAULT_ROUTER_SETTINGS);
  });
});
