/**
 * Extensions (DESIGN.md section 5, Extensions; section 2: variant B keeps extension artifacts in
 * the database, encrypted). The module's source is a purpose-bound envelope (`extension-artifact`),
 * its key id mirrored in a column so `encryption:rotate` finds the rows to re-encrypt by index.
 *
 * Each call record gets the outcome and duration of every extension hook that ran on it.
 */
export const sql = `
create table extensions (
  id text primary key,
  description text not null default '',
  critical boolean not null default false,
  enabled boolean not null default true,
  models text[] not null default '{*}',
  source_envelope text not null,
  source_key_id text not null,
  config jsonb,
  timeout_ms integer not null,
  memory_mb integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index extensions_source_key_id on extensions (source_key_id);

alter table request_logs add column extensions jsonb;
alter table gateway_operations add column extensions jsonb;
`;
