import type { Db } from '../../store/database.ts';
import type { Purpose } from '../purposes.ts';

/** One sealed value of a table, as the rotation engine sees it. */
export interface EnvelopeRow {
  id: string;
  envelope: string;
}

export interface BatchQuery {
  activeId: string;
  /** Keyset position: only rows whose id sorts after it (null: from the start). */
  afterId: string | null;
  limit: number;
}

/**
 * How `encryption:rotate` reaches one table's envelopes (SPEC.md, Authentication, Variant B,
 * rotation step 3). A table with sealed values joins rotation with one rotator in ROTATORS.
 */
export interface TableRotator {
  /** The name printed in the report (`<table>: <n> re-encrypted`). */
  readonly table: string;
  /** The purpose the table's envelopes are sealed for. */
  readonly purpose: Purpose;
  /** Published when the run changed rows, so replicas holding the values reload them. */
  readonly channel?: string;
  /**
   * Locks and returns, in id order, up to `limit` rows after `afterId` whose envelope is not
   * under `activeId`; rows another transaction holds are skipped (`FOR UPDATE SKIP LOCKED`).
   */
  selectBatch(tx: Db, query: BatchQuery): Promise<EnvelopeRow[]>;
  /**
   * Compare-and-set: writes `next` (sealed under `activeId`) only where the envelope is still
   * `row.envelope`, so a concurrent change of the value is never overwritten. True when written.
   */
  update(tx: Db, row: EnvelopeRow, next: string, activeId: string): Promise<boolean>;
}
