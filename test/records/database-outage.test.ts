import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OpenAIFake } from '../fakes/openai-fake.ts';
import { type ChildGateway, startChildGatewayBehindProxy } from '../helpers/child-gateway.ts';
import type { TestDatabase } from '../helpers/database.ts';
import type { TestSql } from '../helpers/sql.ts';
import type { TcpProxy } from '../helpers/tcp-proxy.ts';
import { chat, connect, createDeployment, eventually, operationOf } from './support.ts';

describe('records while the database is unreachable (variant B)', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let fake: OpenAIFake;
  let gw: ChildGateway;
  let sql: TestSql;

  before(async () => {
    ({ database, proxy, gw } = await startChildGatewayBehindProxy());
    fake = await new OpenAIFake().start();
    sql = connect({ database });
    await createDeployment(gw, { publicModel: 'outage', baseUrl: fake.baseUrl });
    // A first call whose record lands: the work the deployment's creation started is over too, so
    // the cut below meets idle connections only.
    const warmUp = `outage-warm-${randomUUID()}`;
    assert.equal((await chat(gw, { token: gw.masterKey, model: 'outage', requestId: warmUp })).status, 200);
    await operationOf(sql, warmUp, 'success');
  });
  after(async () => {
    await sql.end();
    assert.equal(await gw.stop(), 0, gw.output());
    await proxy.close();
    await fake.close();
    await database.drop();
  });

  it('serves every call, holds the records, says so once per interval, and writes them when the database returns', async () => {
    proxy.cut();
    const prefix = `outage-${randomUUID()}`;
    try {
      for (let i = 0; i < 5; i += 1) {
        const res = await chat(gw, { token: gw.masterKey, model: 'outage', requestId: `${prefix}-${i}` });
        assert.equal(res.status, 200, res.text);
      }
      const line = await eventually(async () => {
        const found = logLines(gw).find((entry) => entry.includes('"queue":"gateway_operations"'));
        return found === undefined ? undefined : (JSON.parse(found) as { queued: number; level: string });
      }, 15_000);
      assert.equal(line.level, 'warn');
      assert.ok(line.queued > 0);
    } finally {
      proxy.restore();
    }
    await eventually(async () => {
      const [row] = await sql<{ n: number }>`
        select count(*)::int as n from gateway_operations where request_id like ${`${prefix}-%`} and status = 'success'`;
      return row.n === 5 ? true : undefined;
    }, 20_000);
    const lines = logLines(gw).filter((entry) => entry.includes('"queue":"gateway_operations"'));
    assert.ok(lines.length <= 4, `one line per queue per interval, not per record (${lines.length})`);
  });
});

function logLines(gw: ChildGateway): string[] {
  return gw.output().split('\n');
}
