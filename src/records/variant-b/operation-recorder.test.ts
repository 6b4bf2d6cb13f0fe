import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import { generateKeyHex, keyringFromCredentialsKey } from '../../crypto/index.ts';
import { createLogger } from '../../diagnostics/logger.ts';
import { testContext } from '../../limits/test-support.ts';
import type { CallContext } from '../../pipeline/call-context.ts';
import type { Db } from '../../store/database.ts';
import { RECORD_QUEUE_DEFAULTS } from '../queue-settings.ts';
import { OperationRecorder } from './operation-recorder.ts';
import { ATTEMPT_COLUMNS, OPERATION_COLUMNS } from './operation-rows.ts';
import { PayloadSampler } from './payload-sampler.ts';

interface Statement {
  text: string;
  /** The parameters: operations, attempts and samples, each a JSON array of rows, read as objects. */
  rows: Record<string, unknown>[][];
}

/** The columns of the operations' and the attempts' rows, which go as arrays of values (rowJson). */
const POSITIONAL_COLUMNS: readonly (readonly string[] | null)[] = [OPERATION_COLUMNS, ATTEMPT_COLUMNS, null];

function rowsOf(json: unknown, index: number): Record<string, unknown>[] {
  const rows = JSON.parse(String(json)) as unknown[];
  const columns = POSITIONAL_COLUMNS[index];
  if (columns === null) return rows as Record<string, unknown>[];
  return rows.map((row) => {
    assert.ok(Array.isArray(row) && row.length === columns.length, `a row of ${columns.length} values`);
    return Object.fromEntries(columns.map((column, at) => [column, row[at]]));
  });
}

/** A database that records each statement it is sent: the unit of cost the queue saves. */
function recorderWithStatementLog(sampleFraction = 0) {
  const statements: Statement[] = [];
  const db = {
    executeQuery: async (query: CompiledQuery) => {
      statements.push({ text: query.sql, rows: query.parameters.map(rowsOf) });
      return { rows: [] };
    },
  } as unknown as Db;
  const recorder = new OperationRecorder({
    db,
    keyring: keyringFromCredentialsKey(generateKeyHex()),
    logger: createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() })),
    maxPromptLength: 100,
    queue: { ...RECORD_QUEUE_DEFAULTS, flushIntervalMs: 60_000 },
    sampler: new PayloadSampler({ fraction: sampleFraction, maxPerSecond: 10, maxBytes: 8192 }, () => 0),
  });
  const [queue] = recorder.queues;
  /** What the background write does every flush interval. */
  const writeDue = () => queue.writeDue();
  /** What the shutdown does. */
  const flush = () => queue.flush(0);
  return { recorder, statements, writeDue, flush };
}

/** The flush interval of `recorderWithStatementLog`: how long a start row waits in the queue. */
const START_ROW_DELAY_MS = 60_000;

function servedCall(): CallContext {
  const ctx = testContext(null, { messages: [{ role: 'user', content: 'hello' }] });
  ctx.attempts.push({
    deploymentId: 'dep_test',
    provider: 'openai',
    upstreamModel: 'gpt-4o-mini',
    publicModel: 'm',
    startedAtMs: ctx.startedAtMs,
    latencyMs: 3,
    firstByteMs: null,
    status: 200,
    outcome: 'success',
    error: null,
  });
  return ctx;
}

const OK = { status: 200, error: null, streamBroken: false };

describe('OperationRecorder writes', () => {
  it('writes a call that ends before its start row is due once: one statement, its final row only', async () => {
    const { recorder, statements, writeDue } = recorderWithStatementLog();
    const ctx = servedCall();
    recorder.onCallStarted(ctx);
    await writeDue();
    assert.equal(statements.length, 0, 'the start row waits for the final row to replace it');
    recorder.onCallFinished(ctx, OK);
    await writeDue();

    assert.equal(statements.length, 1);
    const [operations, attempts, samples] = statements[0].rows;
    assert.deepEqual(
      operations.map((row) => [row.request_id, row.status]),
      [[ctx.requestId, 'success']],
    );
    assert.deepEqual(
      attempts.map((row) => [row.operation_id, row.outcome]),
      [[operations[0].id, 'success']],
    );
    assert.deepEqual(samples, []);
  });

  it('writes a call still running when its start row is due twice: in_progress, then the final row', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    const { recorder, statements, writeDue } = recorderWithStatementLog();
    const ctx = servedCall();
    recorder.onCallStarted(ctx);
    t.mock.timers.tick(START_ROW_DELAY_MS);
    await writeDue();
    recorder.onCallFinished(ctx, OK);
    await writeDue();

    assert.equal(statements.length, 2);
    const [started, finished] = statements.map((statement) => statement.rows[0]);
    assert.deepEqual(
      started.map((row) => [row.status, row.finished_at]),
      [['in_progress', null]],
    );
    assert.deepEqual(
      finished.map((row) => [row.id, row.status]),
      [[started[0].id, 'success']],
    );
    assert.deepEqual(statements[0].rows[1], [], 'attempts come with the final row');
  });

  it('writes the start row of a call still running on shutdown, due or not', async () => {
    const { recorder, statements, flush } = recorderWithStatementLog();
    const ctx = servedCall();
    recorder.onCallStarted(ctx);
    await flush();
    assert.deepEqual(
      statements.map((statement) => statement.rows[0].map((row) => [row.request_id, row.status])),
      [[[ctx.requestId, 'in_progress']]],
    );
  });

  it('writes a batch of calls and their attempts and samples in one statement', async () => {
    const { recorder, statements, writeDue } = recorderWithStatementLog(1);
    const calls = [servedCall(), servedCall(), servedCall()];
    for (const ctx of calls) recorder.onCallStarted(ctx);
    for (const ctx of calls) recorder.onCallFinished(ctx, OK);
    await writeDue();

    assert.equal(statements.length, 1);
    const [operations, attempts, samples] = statements[0].rows;
    assert.equal(operations.length, 3);
    assert.equal(attempts.length, 3);
    assert.deepEqual(
      samples.map((row) => [row.operation_id, row.reason]),
      operations.map((row) => [row.id, 'sampled']),
    );
    assert.match(statements[0].text, /where excluded\.status <> 'in_progress'/);
  });
});
