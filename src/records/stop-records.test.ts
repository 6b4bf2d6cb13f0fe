import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, type Logger } from '../diagnostics/logger.ts';
import { DependencyTimeoutError } from '../store/database.ts';
import { BatchQueue } from './batch-queue.ts';
import { stopRecords } from './index.ts';

/** A queue of variant B's name whose batches go to `write`, checked every minute only. */
function operationsQueue(write: (items: readonly number[]) => Promise<void>, logger: Logger) {
  return new BatchQueue<number>({
    name: 'gateway_operations',
    capacity: 10,
    batchSize: 10,
    flushIntervalMs: 60_000,
    dropReportIntervalMs: 60_000,
    writeTimeoutMs: 60_000,
    write,
    logger,
  });
}

/**
 * The flaky `database-blackhole` run of stop 50: a maintenance job's run waited on a database
 * that had stopped answering, the shutdown step waited for the job before flushing the queues,
 * and the step's deadline passed with the records never counted as lost.
 */
describe('stopRecords with a job stuck on a silent database', () => {
  it('reports the records it could not write within the deadline, then gives up on the job', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    const silent = () => new Promise<void>(() => {});
    const queue = operationsQueue(silent, logger);
    for (const item of [1, 2, 3]) queue.push(item);
    const stuckJob = { stop: silent };
    const started = Date.now();
    await assert.rejects(stopRecords([queue], [stuckJob], 300), DependencyTimeoutError);
    assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
    const lost = lines.find(
      (line) => line.queue === 'gateway_operations' && typeof line.dropped === 'number',
    );
    assert.equal(lost?.dropped, 3, JSON.stringify(lines));
  });

  it('waits for jobs that stop in time, and reports nothing lost when every record was written', async () => {
    const written: number[] = [];
    const logger = createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() }));
    const queue = operationsQueue(async (items) => {
      written.push(...items);
    }, logger);
    queue.push(7);
    let jobStopped = false;
    const job = {
      stop: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        jobStopped = true;
      },
    };
    await stopRecords([queue], [job], 1_000);
    assert.deepEqual(written, [7]);
    assert.equal(jobStopped, true);
  });
});
