import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/errors/config-error.ts';
import { createTestDatabase, migrateTestDatabase } from '../helpers/database.ts';
import { startTestGateway } from '../helpers/gateway.ts';
import { connect, eventually } from '../records/support.ts';
import { auditPage } from './support.ts';

/** An audit row `days` old, inserted as an earlier run of the gateway would have. */
function oldRow(id: string, days: number) {
  return [id, new Date(Date.now() - days * 86_400_000), `/admin/keys/key_${id}`];
}

describe('AUDIT_RETENTION_DAYS', () => {
  it('deletes audit rows older than the retention, on its own clock, and keeps the rest', async () => {
    const database = await createTestDatabase();
    await migrateTestDatabase(database.url);
    const sql = connect({ database });
    try {
      for (const [id, at, path] of [
        oldRow('aud_old400', 400),
        oldRow('aud_old40', 40),
        oldRow('aud_new10', 10),
      ]) {
        await sql`insert into audit_events (id, kind, at, actor, method, path, status, request_id)
          values (${id}, 'admin_mutation', ${at}, 'master', 'DELETE', ${path}, 200, ${`req-${id}`})`;
      }
      // Default 365 days: the 400-day row goes at start (the job runs at once), the others stay.
      const first = await startTestGateway({ database });
      try {
        const left = await eventually(async () => {
          const page = await auditPage(first, '?limit=500');
          const ids = page.body.data.map((row) => row.id);
          return ids.includes('aud_old400') ? undefined : ids;
        });
        assert.deepEqual(left.sort(), ['aud_new10', 'aud_old40']);
      } finally {
        await first.close();
      }
      // 30 days, on another replica: the 40-day row goes too.
      const second = await startTestGateway({ database, env: { AUDIT_RETENTION_DAYS: '30' } });
      try {
        const left = await eventually(async () => {
          const rows = await sql`select id from audit_events where id like 'aud_old%' or id like 'aud_new%'`;
          return rows.length === 1 ? rows.map((row) => row.id) : undefined;
        });
        assert.deepEqual(left, ['aud_new10']);
      } finally {
        await second.close();
      }
    } finally {
      await sql.end();
      await database.drop();
    }
  });

  it('is validated at start', () => {
    for (const bad of ['0', '-1', '1.5', 'year', '40000']) {
      assert.throws(() => loadConfig({ AUDIT_RETENTION_DAYS: bad }), ConfigError, bad);
    }
    assert.equal(loadConfig({}).auditRetentionDays, 365);
    assert.equal(loadConfig({ AUDIT_RETENTION_DAYS: '90' }).auditRetentionDays, 90);
  });
});
