/**
 * Governance (DESIGN.md section 5): teams and budget periods.
 *
 * A key or team with a `budget_period` has a calendar budget (UTC); `budget_reset_at` is when
 * reset-spend last started a new period. `spend_cents` stays the cumulative total; the spend of
 * the period under way is `period_spend_cents` while `period_start` is that period's start (a
 * row whose `period_start` is older holds the spend of a period that has ended: nothing spent
 * since). Both are written by the batched spend flush, never by a job.
 *
 * A key belongs to at most one team; a team with keys is deleted only after they leave it (the
 * admin API disables them first with `?cascade=disable`). The calls record their key's team.
 */
export const sql = `
create table teams (
  id text primary key,
  name text not null default '',
  allowed_models text[] not null default '{*}',
  rpm_limit integer check (rpm_limit > 0),
  tpm_limit integer check (tpm_limit > 0),
  budget_cents numeric check (budget_cents >= 0),
  budget_period text check (budget_period in ('daily', 'weekly', 'monthly')),
  budget_reset_at timestamptz,
  spend_cents numeric not null default 0,
  period_start timestamptz,
  period_spend_cents numeric not null default 0,
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

alter table virtual_keys
  add column team_id text references teams (id),
  add column budget_period text check (budget_period in ('daily', 'weekly', 'monthly')),
  add column budget_reset_at timestamptz,
  add column period_start timestamptz,
  add column period_spend_cents numeric not null default 0;
create index virtual_keys_team_id on virtual_keys (team_id) where team_id is not null;

alter table request_logs add column team_id text;
alter table gateway_operations add column team_id text;
`;
