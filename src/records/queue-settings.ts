/**
 * Sizes of the record queues (DESIGN.md section 4: bounded, batched, flushed on shutdown). A record
 * row is about 1-3 KiB in memory with its truncated prompt, so a full queue holds tens of MiB at
 * most while the database is away.
 */
export interface RecordQueueSettings {
  capacity: number;
  batchSize: number;
  flushIntervalMs: number;
  dropReportIntervalMs: number;
  writeTimeoutMs: number;
}

export const RECORD_QUEUE_DEFAULTS: Readonly<RecordQueueSettings> = Object.freeze({
  /** Records held per queue while the database is slow or down; beyond it new records are dropped. */
  capacity: 20_000,
  /** Rows per multi-row INSERT: 500 x ~20 columns stays far below Postgres's 65,535 parameters. */
  batchSize: 500,
  /** The background flush period: how stale a record may be before it is in the database. */
  flushIntervalMs: 1_000,
  /** One summary line per this period about dropped records, never one per record. */
  dropReportIntervalMs: 10_000,
  /** Bound on one batch write; a hung database counts as down. */
  writeTimeoutMs: 10_000,
});
