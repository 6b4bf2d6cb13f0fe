import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import { createLogger } from '../../diagnostics/logger.ts';
import { testContext } from '../../limits/test-support.ts';
import type { Db } from '../../store/database.ts';
import { RECORD_QUEUE_DEFAULTS } from '../queue-settings.ts';
import { columnsOf } from '../recordset-json.ts';
import { RequestLogRecorder } from './request-log-recorder.ts';
import { REQUEST_LOG_COLUMN_TYPES } from './request-log-row.ts';

/** A batch's rows, each the array of its values in the columns' order, as objects by column. */
function rowsOf(parameter: string): Record<string, unknown>[] {
  const columns = columnsOf(REQUEST_LOG_COLUMN_TYPES);
  return (JSON.parse(parameter) as unknown[][]).map((values) => {
    assert.equal(values.length, columns.length);
    return Object.fromEntries(columns.map((column, index) => [column, values[index]]));
  });
}

describe('RequestLogRecorder writes', () => {
  it('writes each call once, a batch in one statement', async () => {
    const statements: { text: string; rows: Record<string, unknown>[] }[] = [];
    const db = {
      executeQuery: async (query: CompiledQuery) => {
        statements.push({ text: query.sql, rows: rowsOf(query.parameters[0] as string) });
        return { rows: [] };
      },
    } as unknown as Db;
    const recorder = new RequestLogRecorder({
      db,
      logger: createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() })),
      maxPromptLength: 100,
      queue: { ...RECORD_QUEUE_DEFAULTS, flushIntervalMs: 60_000 },
    });
    const calls = [testContext(null), testContext(null), testContext(null)];
    for (const ctx of calls) recorder.onCallFinished(ctx, { status: 200, error: null, streamBroken: false });
    await recorder.queue.flush(0);

    assert.equal(statements.length, 1);
    assert.deepEqual(
      statements[0].rows.map((row) => row.request_id),
      calls.map((ctx) => ctx.requestId),
    );
    assert.equal(new Set(statements[0].rows.map((row) => row.id)).size, 3);
    assert.match(statements[0].text, /on conflict do nothing/, 'a retried batch cannot store a row twice');
  });
});
