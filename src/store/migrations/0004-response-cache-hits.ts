/**
 * The response cache (DESIGN.md section 5) records a hit as a hit: a call answered from the cache
 * has no upstream attempt and costs nothing, and its record says why. Existing rows were all
 * served from upstream, hence the default.
 */
export const sql = `
alter table request_logs add column cache_hit boolean not null default false;
alter table gateway_operations add column cache_hit boolean not null default false;
`;
