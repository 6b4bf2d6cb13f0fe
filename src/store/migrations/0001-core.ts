/** Deployments, virtual keys and router settings (DESIGN.md section 5). */
export const sql = `
create table deployments (
  id text primary key,
  public_model text not null,
  provider text not null,
  upstream_model text not null,
  api_key_envelope text,
  api_key_key_id text,
  base_url text,
  enabled boolean not null default true,
  weight double precision not null default 1 check (weight > 0),
  rpm_limit integer check (rpm_limit > 0),
  tpm_limit integer check (tpm_limit > 0),
  pricing jsonb,
  profile jsonb,
  provider_options jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index deployments_public_model on deployments (public_model);
create index deployments_api_key_key_id on deployments (api_key_key_id);

create table virtual_keys (
  id text primary key,
  name text not null default '',
  key_hash bytea not null unique,
  allowed_models text[] not null default '{}',
  rpm_limit integer check (rpm_limit > 0),
  tpm_limit integer check (tpm_limit > 0),
  budget_cents numeric check (budget_cents >= 0),
  spend_cents numeric not null default 0,
  enabled boolean not null default true,
  expires_at timestamptz,
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table router_settings (
  id integer primary key check (id = 1),
  settings jsonb not null,
  updated_at timestamptz not null default now()
);
`;
