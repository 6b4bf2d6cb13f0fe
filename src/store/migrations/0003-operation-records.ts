/**
 * Variant B request records (SPEC.md, Request log records): one `gateway_operations` row per call
 * (written `in_progress` when the call starts, finalized when it ends), one `upstream_attempts` row
 * per upstream attempt, and encrypted, bounded `payload_samples`. Metadata never holds a body:
 * only the truncated prompt. Each kind has its own retention (src/jobs/retention-job.ts).
 */
export const sql = `
create table gateway_operations (
  id text primary key,
  request_id text not null,
  started_at timestamptz not null,
  finished_at timestamptz,
  status text not null check (status in ('in_progress', 'success', 'failure', 'cancelled', 'abandoned')),
  http_status integer,
  error_code text,
  error_class text,
  operation text not null,
  key_id text,
  public_model text not null,
  deployment_id text,
  stream boolean not null default false,
  input_tokens integer,
  output_tokens integer,
  cached_input_tokens integer,
  cost_cents numeric not null default 0,
  latency_ms integer,
  attempt_count integer not null default 0,
  prompt text
);
create index gateway_operations_started_at on gateway_operations (started_at, id);
create index gateway_operations_request_id on gateway_operations (request_id);
create index gateway_operations_key_id on gateway_operations (key_id, started_at);
create index gateway_operations_public_model on gateway_operations (public_model, started_at);
create index gateway_operations_deployment_id on gateway_operations (deployment_id, started_at);
create index gateway_operations_in_progress on gateway_operations (started_at) where status = 'in_progress';

create table upstream_attempts (
  operation_id text not null,
  attempt_index integer not null,
  request_id text not null,
  deployment_id text not null,
  provider text not null,
  upstream_model text not null,
  public_model text not null,
  started_at timestamptz not null,
  outcome text not null check (outcome in ('in_progress', 'success', 'failure', 'abandoned')),
  latency_ms integer,
  first_byte_ms integer,
  http_status integer,
  error_class text,
  error_code text,
  error_detail jsonb,
  primary key (operation_id, attempt_index)
);
create index upstream_attempts_started_at on upstream_attempts (started_at);
create index upstream_attempts_deployment_id on upstream_attempts (deployment_id, started_at);
create index upstream_attempts_in_progress on upstream_attempts (started_at) where outcome = 'in_progress';

create table payload_samples (
  id text primary key,
  operation_id text not null,
  request_id text not null,
  created_at timestamptz not null,
  reason text not null check (reason in ('sampled', 'failure')),
  envelope text not null,
  envelope_key_id text not null,
  size_bytes integer not null
);
create index payload_samples_created_at on payload_samples (created_at);
create index payload_samples_operation_id on payload_samples (operation_id);
create index payload_samples_envelope_key_id on payload_samples (envelope_key_id);
`;
