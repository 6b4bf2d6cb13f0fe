import type { Insertable } from 'kysely';
import type { Logger } from '../diagnostics/logger.ts';
import { BatchQueue } from '../records/batch-queue.ts';
import { RECORD_QUEUE_DEFAULTS, type RecordQueueSettings } from '../records/queue-settings.ts';
import { recordId } from '../records/record-id.ts';
import type { Db } from '../store/database.ts';
import type { AuditEventsTable } from '../store/tables.ts';
import type { AuditEvent } from './audit-event.ts';

export interface AuditLogOptions {
  /** Where queued rows are written (background statements). */
  db: Db;
  logger: Logger;
  queue?: Partial<RecordQueueSettings>;
}

/**
 * Audit rows are written like request records (DESIGN.md section 4): pushed to a bounded
 * in-process queue, written in batches off the request path, and flushed on shutdown.
 */
export class AuditLog {
  readonly queue: BatchQueue<StoredAuditEvent>;
  readonly #db: Db;

  constructor(options: AuditLogOptions) {
    this.#db = options.db;
    this.queue = new BatchQueue<StoredAuditEvent>({
      ...RECORD_QUEUE_DEFAULTS,
      ...options.queue,
      name: 'audit_events',
      logger: options.logger,
      write: (events) => writeAuditEvents(this.#db, events),
    });
  }

  /** Queues a row; never waits and never throws. */
  record(event: AuditEvent): void {
    this.queue.push({ ...event, id: recordId('aud') });
  }

  /**
   * Writes a row on `db` (the request path's, bounded by the dependency timeout) before the
   * answer leaves, so a SIGKILL after an admin change was answered cannot lose its row (issue 30
   * finding 10). A row that could not be written is queued under the same id, so a write that
   * timed out but landed adds nothing. Never throws.
   */
  async recordNow(event: AuditEvent, db: Db): Promise<void> {
    const stored = { ...event, id: recordId('aud') };
    try {
      await writeAuditEvents(db, [stored]);
    } catch {
      this.queue.push(stored);
    }
  }
}

/** A row with the id it keeps across retries. */
export type StoredAuditEvent = AuditEvent & { id: string };

/**
 * Inserts audit rows in one statement on `db`. A batch written again after a write whose answer
 * was lost (timeout) finds its rows there by id and adds nothing.
 */
export async function writeAuditEvents(db: Db, events: readonly StoredAuditEvent[]): Promise<void> {
  await db
    .insertInto('audit_events')
    .values(events.map(auditRow))
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}

function auditRow(event: StoredAuditEvent): Insertable<AuditEventsTable> {
  return {
    id: event.id,
    kind: event.kind,
    at: event.at,
    actor: event.actor,
    method: event.method,
    path: event.path,
    resource_id: event.resourceId,
    status: event.status,
    request_id: event.requestId,
    source_address: event.sourceAddress,
    reason: event.reason,
  };
}
