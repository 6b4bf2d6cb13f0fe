import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { runPartitionMaintenance } from '../../src/jobs/partition-job.ts';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { sqlOn } from '../helpers/sql.ts';
import { admin, chat, createDeployment, eventually } from './support.ts';

/** The same records on the embedded default (PGlite behind its socket): no COPY, same SQL. */
for (const variant of ['a', 'b'] as const) {
  describe(`request records on embedded PGlite (variant ${variant})`, () => {
    let fake: OpenAIFake;
    let gw: TestGateway;
    before(async () => {
      fake = await new OpenAIFake().start();
      gw = await startTestGateway({ storage: 'embedded', redis: false, env: { GATEWAY_VARIANT: variant } });
      await createDeployment(gw, { publicModel: 'embedded', baseUrl: fake.baseUrl });
    });
    after(async () => {
      await gw.close();
      await fake.close();
    });

    it('records a call', async () => {
      const requestId = `emb-${randomUUID()}`;
      assert.equal((await chat(gw, { token: gw.masterKey, model: 'embedded', requestId })).status, 200);
      if (variant === 'b') {
        const page = await eventually(async () => {
          const res = await admin<{ data: { status: string; attempts: unknown[] }[] }>(
            gw,
            'GET',
            `/admin/logs?requestId=${requestId}`,
          );
          return res.body.data[0]?.status === 'success' ? res.body : undefined;
        });
        assert.equal(page.data[0].attempts.length, 1);
        return;
      }
      const sql = sqlOn(gw.gateway.runtime.database.background);
      await eventually(async () => {
        const rows =
          await sql`select tableoid::regclass::text as partition from request_logs where request_id = ${requestId}`;
        return rows[0]?.partition.startsWith('request_logs_p') ? true : undefined;
      });
    });

    if (variant === 'a') {
      it('runs the partition job through the socket (temporary table, advisory lock)', async () => {
        const sql = sqlOn(gw.gateway.runtime.database.background);
        await sql`insert into request_logs (id, request_id, created_at, operation, public_model, status, latency_ms)
          values ('log_old_day', 'r', now() - interval '5 days', 'chat.completions', 'm', 200, 1)`;
        const result = await runPartitionMaintenance(
          { db: sql.db, intervalMs: 3_600_000, createDays: 3, retentionDays: 30 },
          true,
        );
        assert.ok(result.ran);
        assert.equal(result.drained.length, 1);
        const [row] =
          await sql`select tableoid::regclass::text as partition from request_logs where id = 'log_old_day'`;
        assert.match(row.partition, /^request_logs_p\d{8}$/);
      });
    }
  });
}
