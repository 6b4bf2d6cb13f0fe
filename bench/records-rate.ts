/**
 * How many record rows per second one Postgres takes from the gateway's batched writers
 * (docs/performance.md, Records at fleet rate). Creates a scratch database on DATABASE_URL's
 * server, migrates it, then for each variant, batch size, number of concurrent writers (one per
 * replica: a replica's queue writes one batch at a time) and `synchronous_commit` setting, writes
 * RECORDS_ROWS calls' records through the gateway's own write path and times it:
 *
 * - variant A: `RequestLogRecorder`'s queue (one `request_logs` row per call), drained by `flush`;
 * - variant B: `writeOperations` (one `gateway_operations` row and one `upstream_attempts` row
 *   per call, no payload sample), each writer writing its batches back to back.
 *
 * Rows carry prompts of 100 to 1,900 characters (as truncated prompts are), a third with tags.
 * The database is dropped at the end unless BENCH_KEEP_DATABASE=1.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/records-rate.ts
 */
import { randomBytes } from 'node:crypto';
import { keyringFromCredentialsKey } from '../src/crypto/index.ts';
import { createLogger } from '../src/diagnostics/logger.ts';
import { HeldRows } from '../src/records/held-rows.ts';
import { RECORD_QUEUE_DEFAULTS } from '../src/records/queue-settings.ts';
import { rowJson } from '../src/records/recordset-json.ts';
import { RequestLogRecorder } from '../src/records/variant-a/request-log-recorder.ts';
import type { RequestLogRow } from '../src/records/variant-a/request-log-row.ts';
import {
  type AttemptRow,
  attemptValues,
  type OperationRow,
  operationValues,
} from '../src/records/variant-b/operation-rows.ts';
import {
  type OperationRecord,
  releaseRows,
  writeOperations,
} from '../src/records/variant-b/operation-writer.ts';
import { type Db, openDatabase } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { queryOnce } from './postgres-query.ts';

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const rowsPerRun = Number(process.env.RECORDS_ROWS ?? 20_000);
const batchSizes = (process.env.RECORDS_BATCH_SIZES ?? '100,500,2000').split(',').map(Number);
const writerCounts = (process.env.RECORDS_WRITERS ?? '1,4').split(',').map(Number);
const keep = process.env.BENCH_KEEP_DATABASE === '1';

const logger = createLogger('error');
const keyring = keyringFromCredentialsKey(randomBytes(32).toString('hex'));

function prompt(i: number): string {
  return 'x'.repeat(100 + ((i * 7919) % 1800));
}

function tags(i: number): string[] {
  return i % 3 === 0 ? [] : i % 3 === 1 ? [`team-${i % 7}`] : [`team-${i % 7}`, `feature-${i % 11}`];
}

function logRow(run: string, i: number): RequestLogRow {
  const at = new Date(Date.now() - (i % 3_600) * 1000).toISOString();
  return {
    id: `log_${run}_${i}`,
    request_id: `req-${run}-${i}`,
    created_at: at,
    key_id: `key_${i % 50}`,
    operation: 'chat.completions',
    public_model: `model-${i % 20}`,
    deployment_id: `dep_${i % 40}`,
    status: 200,
    error_code: null,
    input_tokens: 200 + (i % 3000),
    output_tokens: 50 + (i % 700),
    cost_cents: 0.25,
    latency_ms: 300 + (i % 2000),
    prompt: prompt(i),
    error_detail: null,
    cache_hit: false,
    tags: tags(i),
    extensions: null,
    team_id: null,
    content_filter: null,
  } as RequestLogRow;
}

/** Final rows as the operation recorder holds them, released once written. */
const heldRows = new HeldRows();

function operationRecord(run: string, i: number): OperationRecord {
  const id = `op_${run}_${i}`;
  const started = new Date(Date.now() - (i % 3_600) * 1000).toISOString();
  const operation = {
    id,
    request_id: `req-${run}-${i}`,
    started_at: started,
    finished_at: started,
    status: 'success',
    http_status: 200,
    error_code: null,
    error_class: null,
    operation: 'chat.completions',
    key_id: `key_${i % 50}`,
    public_model: `model-${i % 20}`,
    deployment_id: `dep_${i % 40}`,
    stream: false,
    input_tokens: 200 + (i % 3000),
    output_tokens: 50 + (i % 700),
    cached_input_tokens: null,
    cost_cents: 0.25,
    latency_ms: 300 + (i % 2000),
    attempt_count: 1,
    prompt: prompt(i),
    cache_hit: false,
    tags: tags(i),
    extensions: null,
    team_id: null,
    content_filter: null,
  } as unknown as OperationRow;
  const attempt = {
    operation_id: id,
    attempt_index: 0,
    request_id: `req-${run}-${i}`,
    deployment_id: `dep_${i % 40}`,
    provider: 'openai',
    upstream_model: 'gpt-4o-mini',
    public_model: `model-${i % 20}`,
    started_at: started,
    outcome: 'success',
    latency_ms: 300 + (i % 2000),
    first_byte_ms: 120,
    http_status: 200,
    error_class: null,
    error_code: null,
    error_detail: null,
  } as unknown as AttemptRow;
  return {
    id,
    operation: heldRows.hold(rowJson(operationValues(operation))),
    attempts: [heldRows.hold(rowJson(attemptValues(attempt)))],
    sample: null,
    dueAtMs: 0,
  };
}

/** Variant A: each writer a recorder's queue holding its share, drained by its flush. */
async function variantA(dbs: Db[], batchSize: number, run: string): Promise<void> {
  const share = Math.ceil(rowsPerRun / dbs.length);
  await Promise.all(
    dbs.map(async (db, w) => {
      const recorder = new RequestLogRecorder({
        db,
        logger,
        maxPromptLength: 2_000,
        queue: { ...RECORD_QUEUE_DEFAULTS, batchSize, capacity: share + 1 },
      });
      for (let i = 0; i < share; i++) recorder.queue.push(logRow(run, w * share + i));
      await recorder.queue.flush(600_000);
    }),
  );
}

/** Variant B: each writer writing its share in batches back to back, as its queue does under load. */
async function variantB(dbs: Db[], batchSize: number, run: string): Promise<void> {
  const share = Math.ceil(rowsPerRun / dbs.length);
  await Promise.all(
    dbs.map(async (db, w) => {
      for (let start = 0; start < share; start += batchSize) {
        const batch: OperationRecord[] = [];
        for (let i = start; i < Math.min(share, start + batchSize); i++)
          batch.push(operationRecord(run, w * share + i));
        await writeOperations(db, keyring, batch);
        for (const record of batch) releaseRows(heldRows, record);
      }
    }),
  );
}

async function main(): Promise<void> {
  const name = `sy_bench_records_${randomBytes(4).toString('hex')}`;
  await queryOnce(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const setup = openDatabase({ url: url.toString(), poolMax: 1, timeoutMs: 60_000 });
  await migrate(setup.background);
  await setup.close();
  const results: string[] = [];
  try {
    for (const variant of ['a', 'b'] as const) {
      for (const syncCommit of ['on', 'off']) {
        for (const writers of writerCounts) {
          for (const batchSize of batchSizes) {
            const withSync = new URL(url);
            withSync.searchParams.set('options', `-c synchronous_commit=${syncCommit}`);
            const dbs = Array.from({ length: writers }, () =>
              openDatabase({ url: withSync.toString(), poolMax: 1, timeoutMs: 60_000 }),
            );
            const run = randomBytes(3).toString('hex');
            const started = performance.now();
            if (variant === 'a')
              await variantA(
                dbs.map((d) => d.background),
                batchSize,
                run,
              );
            else
              await variantB(
                dbs.map((d) => d.background),
                batchSize,
                run,
              );
            const seconds = (performance.now() - started) / 1000;
            await Promise.all(dbs.map((d) => d.close()));
            const table = variant === 'a' ? 'request_logs' : 'gateway_operations';
            const [{ count }] = await queryOnce<{ count: string }>(
              url.toString(),
              `select count(*)::text as count from ${table} where request_id like 'req-${run}-%'`,
            );
            const line = `variant ${variant} | synchronous_commit ${syncCommit} | writers ${writers} | batch ${batchSize} | ${count} calls in ${seconds.toFixed(2)} s | ${Math.round(Number(count) / seconds)} calls/s`;
            results.push(line);
            process.stdout.write(`${line}\n`);
          }
        }
      }
    }
  } finally {
    if (!keep) await queryOnce(serverUrl, `drop database ${name} with (force)`);
  }
  process.stdout.write(`\n${results.join('\n')}\n`);
}

await main();
