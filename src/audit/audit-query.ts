import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { keysetPage, type PageCursor } from '../records/queries/cursor.ts';
import type { Db } from '../store/database.ts';
import type { AuditEventsTable } from '../store/tables.ts';
import type { AuditEvent, AuditKind } from './audit-event.ts';

export interface AuditFilter {
  kind?: AuditKind;
  method?: string;
  /** Rows whose path starts with this. */
  path?: string;
  resourceId?: string;
  status?: number;
  since?: Date;
  until?: Date;
  limit: number;
  cursor?: PageCursor;
}

/** A row as `GET /admin/audit` shows it. */
export type AuditEventView = Omit<AuditEvent, 'at'> & { id: string; at: string };

export interface AuditPage {
  data: AuditEventView[];
  nextCursor: string | null;
}

/** `GET /admin/audit`: rows newest first, keyset-paginated on (at, id) like `/admin/logs`. */
export async function queryAuditLog(db: Db, filter: AuditFilter): Promise<AuditPage> {
  let query = db.selectFrom('audit_events').selectAll();
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  if (filter.path !== undefined) query = query.where(sql<boolean>`starts_with(path, ${filter.path})`);
  if (filter.resourceId !== undefined) query = query.where('resource_id', '=', filter.resourceId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('at', '<', filter.until);
  const cursor = filter.cursor;
  if (cursor !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('at', 'id'), '<', eb.tuple(cursor.startedAt, cursor.id)));
  }
  const rows = await query
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  const page = keysetPage(rows, filter.limit, (row) => ({ startedAt: new Date(row.at), id: row.id }));
  return { data: page.rows.map(auditEventView), nextCursor: page.nextCursor };
}

function auditEventView(row: Selectable<AuditEventsTable>): AuditEventView {
  return {
    id: row.id,
    kind: row.kind,
    at: new Date(row.at).toISOString(),
    actor: row.actor,
    method: row.method,
    path: row.path,
    resourceId: row.resource_id,
    status: row.status,
    requestId: row.request_id,
    sourceAddress: row.source_address,
    reason: row.reason,
  };
}
