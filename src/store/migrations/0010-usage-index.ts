/**
 * `/admin/usage` (docs/performance.md, Usage queries) sums every column it reads from one index
 * scan: the start-time index now carries those columns, so a time range is read from the index
 * alone (an index-only scan) instead of from the table rows, which hold the truncated prompt and
 * are ten times wider. It replaces the plain start-time index, whose key it keeps for the logs'
 * pages and retention, so records still maintain one index on start time.
 */
export const sql = `
create index gateway_operations_started_at_usage on gateway_operations (started_at, id)
  include (key_id, public_model, deployment_id, status, input_tokens, output_tokens,
           cached_input_tokens, cost_cents, tags, team_id);
drop index gateway_operations_started_at;
`;
