import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import { generateKeyHex, keyringFromCredentialsKey } from '../../src/crypto/index.ts';
import { createLogger } from '../../src/diagnostics/logger.ts';
import { runReconcile } from '../../src/jobs/reconcile-job.ts';
import { testContext } from '../../src/limits/test-support.ts';
import type { CallContext, CallOutcome } from '../../src/pipeline/call-context.ts';
import { RECORD_QUEUE_DEFAULTS } from '../../src/records/queue-settings.ts';
import { RequestLogRecorder } from '../../src/records/variant-a/request-log-recorder.ts';
import { OperationRecorder } from '../../src/records/variant-b/operation-recorder.ts';
import { PayloadSampler } from '../../src/records/variant-b/payload-sampler.ts';
import { type Database, type Db, openDatabase } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { sqlOn, type TestSql } from '../helpers/sql.ts';
import { installRowVersions } from './support.ts';

const OK: CallOutcome = { status: 200, error: null, streamBroken: false };
const quiet = () => createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() }));
const queue = { ...RECORD_QUEUE_DEFAULTS, flushIntervalMs: 60_000 };

/**
 * Row versions each call leaves, counted by a trigger on a real database: the recorders are driven
 * directly, their queues flushed by hand where the gateway's 1 s timer would, so which flush a call
 * straddles is chosen by the test, not by timing.
 */
describe('record writes on Postgres: row versions per call', () => {
  let testDb: TestDatabase;
  let database: Database;
  let sql: TestSql;

  before(async () => {
    testDb = await createTestDatabase();
    database = openDatabase({ url: testDb.url, poolMax: 2, timeoutMs: 5000 });
    sql = sqlOn(database.background);
    await migrate(database.background);
    await installRowVersions(sql);
  });
  after(async () => {
    await database.close();
    await testDb.drop();
  });
  beforeEach(async () => {
    await sql`truncate row_versions, gateway_operations, upstream_attempts, payload_samples, request_logs`;
  });

  const versions = async () =>
    (
      await sql<{
        op: string;
        status: string;
      }>`select op, status from row_versions order by seq`
    ).map((row) => [row.op, row.status]);

  function operations() {
    const recorder = new OperationRecorder({
      db: database.background,
      keyring: keyringFromCredentialsKey(generateKeyHex()),
      logger: quiet(),
      maxPromptLength: 100,
      queue,
      sampler: new PayloadSampler({ fraction: 0, maxPerSecond: 10, maxBytes: 8192 }),
    });
    const [operationQueue] = recorder.queues;
    return { recorder, queue: operationQueue, flush: () => operationQueue.flush(0) };
  }

  const call = (content = 'hello'): CallContext =>
    testContext(null, { messages: [{ role: 'user', content }] });

  it('writes a call that ends before the next flush once: one insert of its final row', async () => {
    const { recorder, flush } = operations();
    const ctx = call();
    recorder.onCallStarted(ctx);
    recorder.onCallFinished(ctx, OK);
    await flush();
    assert.deepEqual(await versions(), [['INSERT', 'success']]);
  });

  it('writes a call still running at a flush in_progress, then updates it once to its final row', async () => {
    const { recorder, flush } = operations();
    const ctx = call();
    recorder.onCallStarted(ctx);
    await flush();
    recorder.onCallFinished(ctx, OK);
    await flush();
    assert.deepEqual(await versions(), [
      ['INSERT', 'in_progress'],
      ['UPDATE', 'success'],
    ]);
  });

  it('finalizes a call the reconcile job marked abandoned while it was still running', async () => {
    const { recorder, flush } = operations();
    const ctx = call();
    recorder.onCallStarted(ctx);
    await flush();
    assert.deepEqual(await runReconcile({ db: database.background, staleAfterMs: 0 }), {
      operations: 1,
      attempts: 0,
    });
    recorder.onCallFinished(ctx, OK);
    await flush();
    const [row] = await sql`select status, http_status from gateway_operations`;
    assert.deepEqual([row.status, row.http_status], ['success', 200]);
  });

  it('never lets an in_progress row written late overwrite the final one', async () => {
    const late = operations();
    const { recorder, flush } = operations();
    const ctx = call();
    // The same start queued twice, as a write that timed out and landed anyway would leave it.
    late.recorder.onCallStarted(ctx);
    recorder.onCallStarted(ctx);
    recorder.onCallFinished(ctx, OK);
    await flush();
    await late.flush();
    assert.deepEqual(await versions(), [['INSERT', 'success']]);
  });

  it('stores a prompt with a lone surrogate and a NUL, cleaned, without losing the row', async () => {
    const { recorder, flush } = operations();
    const ctx = call('a\ud800b\u0000c');
    recorder.onCallStarted(ctx);
    recorder.onCallFinished(ctx, OK);
    await flush();
    const [row] = await sql`select prompt from gateway_operations`;
    assert.equal(row.prompt, 'user: a\ufffdbc');
  });

  it('stores every row of calls whose rows were held in chunks reused between writes, non-ASCII included', async () => {
    const { recorder, queue: operationQueue, flush } = operations();
    const expected: string[] = [];
    const finish = (content: string) => {
      expected.push(`user: ${content}`.slice(0, 100));
      const ctx = call(content);
      recorder.onCallStarted(ctx);
      recorder.onCallFinished(ctx, OK);
    };
    const calls = (round: number) => {
      for (let index = 0; index < 400; index += 1) {
        finish(`${round}/${index} héllo 🙂 ${'é'.repeat(index % 40)}${'x'.repeat(index % 50)}`);
      }
    };
    calls(0);
    // A call that ends while a write is in flight: its row stays queued, in the chunk being
    // written into, after every row around it is written and released.
    const writing = operationQueue.writeDue();
    finish('ended during a write');
    await writing;
    calls(1);
    await flush();
    calls(2);
    await flush();
    const stored = await sql<{ prompt: string }>`select prompt from gateway_operations`;
    assert.deepEqual(stored.map((row) => row.prompt).sort(), expected.sort());
  });

  it('writes a variant A call once, and a batch sent twice (a write that timed out but landed) stores it once', async () => {
    const twice = {
      executeQuery: async (query: CompiledQuery) => {
        await database.background.executeQuery(query);
        return database.background.executeQuery(query);
      },
    } as unknown as Db;
    const recorder = new RequestLogRecorder({ db: twice, logger: quiet(), maxPromptLength: 100, queue });
    recorder.onCallFinished(call(), OK);
    await recorder.queue.flush(0);
    assert.deepEqual(await versions(), [['INSERT', '200']]);
  });
});
