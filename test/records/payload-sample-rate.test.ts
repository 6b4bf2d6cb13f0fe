import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { TestSql } from '../helpers/sql.ts';
import { chat, connect, createDeployment, operationOf } from './support.ts';

/** OBSERVABILITY_PAYLOAD_SAMPLE_RATE decides which successful calls leave a sample. */
for (const rate of ['1', '0'] as const) {
  describe(`OBSERVABILITY_PAYLOAD_SAMPLE_RATE=${rate}`, () => {
    let fake: OpenAIFake;
    let gw: TestGateway;
    let sql: TestSql;
    before(async () => {
      fake = await new OpenAIFake().start();
      gw = await startTestGateway({ env: { OBSERVABILITY_PAYLOAD_SAMPLE_RATE: rate } });
      sql = connect(gw);
      await createDeployment(gw, { publicModel: 'rated', baseUrl: fake.baseUrl });
    });
    after(async () => {
      await sql.end();
      await gw.close();
      await fake.close();
    });

    it(rate === '1' ? 'samples every successful call' : 'samples no successful call', async () => {
      const ids = Array.from({ length: 3 }, () => `rate-${randomUUID()}`);
      for (const requestId of ids) {
        const res = await chat(gw, { token: gw.masterKey, model: 'rated', requestId });
        assert.equal(res.status, 200);
      }
      const operations = await Promise.all(ids.map((id) => operationOf(sql, id, 'success')));
      await gw.gateway.shutdown();
      const [{ count }] = await sql<{ count: number }>`
        select count(*)::int as count from payload_samples
        where operation_id = any(${operations.map((op) => op.id)}) and reason = 'sampled'`;
      assert.equal(count, rate === '1' ? 3 : 0);
    });
  });
}
