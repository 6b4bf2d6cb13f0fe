/**
 * `/admin/usage` over long ranges (issue 35 item 4): the figures of `gateway_operations` summed per
 * UTC hour along each dimension a report groups by, kept by the `usage-rollup` job
 * (src/records/usage-rollup.ts) for hours old enough that no call of theirs can still change:
 * `dimension` is `key`, `team`, `model`, `deployment` (`value` the id or name, null as in the
 * report), `tag` (one row per tag, null for untagged calls: a call with two tags is in two rows)
 * or `all` (one row per hour). `usage_rollup_state.rolled_through` is the end of the last hour
 * rolled up: a report reads the hours before it from here and the rest from the records
 * (src/records/queries/usage-query.ts).
 */
export const sql = `
create table usage_hourly (
  dimension text not null check (dimension in ('key', 'team', 'model', 'deployment', 'tag', 'all')),
  value text,
  started_at timestamptz not null,
  requests bigint not null,
  input_tokens bigint,
  output_tokens bigint,
  cached_input_tokens bigint,
  cost_cents numeric not null,
  errors bigint not null
);
create index usage_hourly_dimension on usage_hourly (dimension, started_at)
  include (value, requests, input_tokens, output_tokens, cached_input_tokens, cost_cents, errors);
create table usage_rollup_state (
  only_row boolean primary key default true check (only_row),
  rolled_through timestamptz not null
);
`;
