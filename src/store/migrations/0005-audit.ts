/**
 * The audit trail (DESIGN.md section 5, Audit; SPEC.md's leak runbook): one row per admin mutation
 * and per payload access, never a secret or a body. Rows follow AUDIT_RETENTION_DAYS. Payload
 * samples get a request-id index: an operator reads them by the `x-request-id` of the call.
 */
export const sql = `
create table audit_events (
  id text primary key,
  kind text not null check (kind in ('admin_mutation', 'payload_access')),
  at timestamptz not null,
  actor text not null,
  method text not null,
  path text not null,
  resource_id text,
  status integer not null,
  request_id text not null,
  source_address text,
  reason text
);
create index audit_events_at on audit_events (at, id);
create index audit_events_resource_id on audit_events (resource_id, at) where resource_id is not null;
create index payload_samples_request_id on payload_samples (request_id);
`;
