import type { Db } from '../../store/database.ts';
import { isEnvelopeError } from '../crypto-errors.ts';
import type { Keyring } from '../keyring.ts';
import type { BatchQuery, TableRotator } from './table-rotator.ts';

/** Rows per transaction: short enough to hold few locks briefly, long enough to finish in few round trips. */
export const ROTATION_BATCH_SIZE = 100;

export interface TableRotation {
  table: string;
  rotated: number;
  /** Rows whose envelope this keyring cannot open (unknown key id, tampered); left as they are. */
  failed: number;
}

export interface RotationEvents {
  /** After each committed batch. */
  onBatch?(table: string, batch: { rotated: number; failed: number; rotatedSoFar: number }): void;
  /** A row that could not be opened; `reason` names key ids only, never key material. */
  onFailure?(table: string, id: string, reason: string): void;
}

/**
 * Re-encrypts every envelope not sealed under the keyring's active id, table by table, in
 * batches of `batchSize` rows, each batch in its own transaction: safe to interrupt (committed
 * batches stay done, a second run continues) and safe beside serving replicas (rows being changed
 * are skipped and a compare-and-set never overwrites a concurrent write). Rows whose envelope
 * cannot be opened are reported and left alone; the keyset walk still moves past them.
 */
export async function rotateEnvelopes(
  db: Db,
  keyring: Keyring,
  rotators: readonly TableRotator[],
  events: RotationEvents = {},
  batchSize = ROTATION_BATCH_SIZE,
): Promise<TableRotation[]> {
  const report: TableRotation[] = [];
  for (const rotator of rotators) {
    const done: TableRotation = { table: rotator.table, rotated: 0, failed: 0 };
    let afterId: string | null = null;
    for (;;) {
      const query: BatchQuery = { activeId: keyring.activeId, afterId, limit: batchSize };
      const batch: BatchResult = await db
        .transaction()
        .execute((tx) => rotateBatch(tx, rotator, keyring, query, events));
      done.rotated += batch.rotated;
      done.failed += batch.failed;
      if (batch.seen > 0) {
        events.onBatch?.(rotator.table, {
          rotated: batch.rotated,
          failed: batch.failed,
          rotatedSoFar: done.rotated,
        });
      }
      if (batch.seen < batchSize || batch.lastId === null) break;
      afterId = batch.lastId;
    }
    report.push(done);
  }
  return report;
}

interface BatchResult {
  seen: number;
  rotated: number;
  failed: number;
  lastId: string | null;
}

/** One transaction: lock a batch, reseal each row, compare-and-set it. */
async function rotateBatch(
  tx: Db,
  rotator: TableRotator,
  keyring: Keyring,
  query: BatchQuery,
  events: RotationEvents,
): Promise<BatchResult> {
  const rows = await rotator.selectBatch(tx, query);
  let rotated = 0;
  let failed = 0;
  for (const row of rows) {
    let next: string;
    try {
      next = keyring.reseal(rotator.purpose, row.envelope);
    } catch (error) {
      if (!isEnvelopeError(error)) throw error;
      failed++;
      events.onFailure?.(rotator.table, row.id, error.message);
      continue;
    }
    if (await rotator.update(tx, row, next, query.activeId)) rotated++;
  }
  return { seen: rows.length, rotated, failed, lastId: rows.at(-1)?.id ?? null };
}
