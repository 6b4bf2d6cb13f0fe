import type { Keyring } from '../../crypto/index.ts';
import { type Db, execute } from '../../store/database.ts';
import { HeldRow, type HeldRows, recordsetBytes } from '../held-rows.ts';
import { insertPositionalRows, recordsetJson, rowJson, type Timestamp } from '../recordset-json.ts';
import {
  ATTEMPT_COLUMN_TYPES,
  OPERATION_COLUMN_TYPES,
  OPERATION_COLUMNS,
  type OperationRow,
  operationValues,
} from './operation-rows.ts';
import type { SampleReason } from './payload-sampler.ts';

/**
 * One operation as queued, keyed by its id: the `in_progress` row pushed when the call starts, then
 * replaced in the queue by the final row with its attempts and maybe a sample to seal. A call that
 * ends before its start row is due is written once, final; a longer one gets its `in_progress` row
 * (what the reconcile job finds after a crash) and the final row later, as an upsert.
 */
export interface OperationRecord {
  /** The operation's id: the queue's key. */
  id: string;
  /**
   * The row. A start row stays an object: most are replaced in the queue before they are due and
   * never serialized. A final row is its JSON (`rowJson`), made when the call ends and held as
   * UTF-8 off the heap (held-rows.ts) for up to a flush interval, and a batch's write copies bytes
   * instead of serializing every row at once, which held the event loop (docs/decisions/hot-path.md).
   */
  operation: OperationRow | HeldRow;
  /** The final row's attempts, each its JSON, held the same way. */
  attempts: readonly HeldRow[];
  sample: PendingSample | null;
  /** When a background write may take it (epoch ms): a flush interval after the start for the start row, at once for the final one. */
  dueAtMs: number;
}

/** Gives a written record's held rows back to `rows` (BatchQueue's `release`). */
export function releaseRows(rows: HeldRows, record: OperationRecord): void {
  if (record.operation instanceof HeldRow) rows.release(record.operation);
  for (const attempt of record.attempts) rows.release(attempt);
}

/** Its id is made when the call ends, so a write retried after a timeout cannot store it twice. */
export interface PendingSample {
  id: string;
  reason: SampleReason;
  plaintext: string;
  /** Its operation's request id and end. */
  requestId: string;
  createdAt: Timestamp;
}

const SAMPLE_COLUMNS = [
  'id',
  'operation_id',
  'request_id',
  'created_at',
  'reason',
  'envelope',
  'envelope_key_id',
  'size_bytes',
] as const;

/** `insert into <table> (<columns>) select <columns> from <the keyed rows of parameter $n>`. */
function insertRows(table: string, columns: readonly string[], parameter: number): string {
  const list = columns.join(', ');
  return `insert into ${table} (${list})
    select ${list} from json_populate_recordset(null::${table}, $${parameter}::text::json)`;
}

/**
 * The one statement of a batch, for all three tables (a single statement is atomic: no
 * transaction round trips). A final operation row replaces what is there (its `in_progress` row,
 * the same row marked `abandoned` by the reconcile job, or itself from a retried batch); an
 * `in_progress` row meeting any existing row changes nothing, so a start written late (a write
 * that timed out and landed anyway) cannot undo a final state. Attempts and samples are written
 * once.
 */
const WRITE_BATCH = `with operations as (
  ${insertPositionalRows('gateway_operations', OPERATION_COLUMN_TYPES, 1)}
    on conflict (id) do update set ${OPERATION_COLUMNS.filter((column) => column !== 'id')
      .map((column) => `${column} = excluded.${column}`)
      .join(', ')}
    where excluded.status <> 'in_progress'
), attempts as (
  ${insertPositionalRows('upstream_attempts', ATTEMPT_COLUMN_TYPES, 2)}
    on conflict do nothing
)
${insertRows('payload_samples', SAMPLE_COLUMNS, 3)}
  on conflict do nothing`;

/**
 * Writes a batch of operations in one statement. Samples are sealed here, off the hot path, with
 * the keyring's active key (purpose `payload-sample`).
 */
export async function writeOperations(
  db: Db,
  keyring: Keyring,
  records: readonly OperationRecord[],
): Promise<void> {
  const operations = new Array<HeldRow | string>(records.length);
  const attempts: HeldRow[] = [];
  const samples: object[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index];
    operations[index] =
      record.operation instanceof HeldRow ? record.operation : rowJson(operationValues(record.operation));
    for (const attempt of record.attempts) attempts.push(attempt);
    if (record.sample !== null) samples.push(sealedSample(keyring, record.id, record.sample));
  }
  await execute(db, WRITE_BATCH, [
    recordsetBytes(operations),
    recordsetBytes(attempts),
    recordsetJson(samples),
  ]);
}

function sealedSample(keyring: Keyring, operationId: string, sample: PendingSample): object {
  return {
    id: sample.id,
    operation_id: operationId,
    request_id: sample.requestId,
    created_at: sample.createdAt,
    reason: sample.reason,
    envelope: keyring.seal('payload-sample', sample.plaintext),
    envelope_key_id: keyring.activeId,
    size_bytes: Buffer.byteLength(sample.plaintext),
  };
}
