import type { AuditEventsTable } from '../store/tables.ts';

/** What an audit row is about (DESIGN.md section 5, Audit): the values of the `kind` column. */
export type AuditKind = AuditEventsTable['kind'];
export const AUDIT_KINDS = ['admin_mutation', 'payload_access'] as const satisfies readonly AuditKind[];

/** The admin methods that change something: each one is audited, refused or not. */
export const MUTATION_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Longest path and resource id kept: a client controls both, so a row stays small whatever it sends. */
const MAX_PATH_LENGTH = 512;
const MAX_ID_LENGTH = 200;

/**
 * One audit row, never a secret or a body: the method and the path without its query (a query
 * may carry `api_key`), the resource, the outcome, who and from where.
 */
export interface AuditEvent {
  kind: AuditKind;
  at: Date;
  /** `master`: the master key is the only admin principal. */
  actor: string;
  method: string;
  path: string;
  resourceId: string | null;
  status: number;
  /** The admin request's `x-request-id`; for a payload access, the call whose payload was read. */
  requestId: string;
  sourceAddress: string | null;
  /** The operator's stated reason (payload access only). */
  reason: string | null;
}

/** The path of a URL without its query string, bounded. */
export function pathOf(url: string): string {
  const end = url.indexOf('?');
  return bounded(end === -1 ? url : url.slice(0, end), MAX_PATH_LENGTH);
}

export function boundedId(id: string | null): string | null {
  return id === null ? null : bounded(id, MAX_ID_LENGTH);
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}
