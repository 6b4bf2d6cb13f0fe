/**
 * Variant A request records (SPEC.md, Request log records): `request_logs`, range-partitioned by
 * day on `created_at` (UTC days), with a DEFAULT partition for rows whose day has no partition yet;
 * the partition job (src/jobs/partition-job.ts) drains it, creates days ahead and drops old days.
 * `job_runs` lets a periodic job that runs under an advisory lock run once per cycle across
 * replicas.
 *
 * The key is a generated id plus the partition column (a partitioned table's unique key must hold
 * the partition key); `request_id` is indexed rather than unique because an inbound
 * `x-request-id` is the client's and may repeat.
 */
export const sql = `
create table request_logs (
  id text not null,
  request_id text not null,
  created_at timestamptz not null,
  key_id text,
  operation text not null,
  public_model text not null,
  deployment_id text,
  status integer not null,
  error_code text,
  input_tokens integer not null default 0,
  output_tokens integer not null default 0,
  cost_cents numeric not null default 0,
  latency_ms integer not null,
  prompt text,
  error_detail jsonb,
  primary key (id, created_at)
) partition by range (created_at);
create table request_logs_default partition of request_logs default;
create index request_logs_request_id on request_logs (request_id);
create index request_logs_created_at on request_logs (created_at);

create table job_runs (
  job text primary key,
  last_run_at timestamptz not null
);
`;
