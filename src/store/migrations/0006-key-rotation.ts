/**
 * Governance (DESIGN.md section 5): key rotation and tags.
 *
 * Rotation keeps the replaced secret's hash with the instant its grace period ends; a lookup by
 * either hash finds the key, and the resolver refuses the previous one from that instant on. The
 * partial index serves that lookup without indexing the keys never rotated with a grace period.
 *
 * Tags: a key's default tags, and the tags of each call on both record tables (the call's own
 * first, then its key's; at most 10). Adding a column with a constant default rewrites nothing.
 */
export const sql = `
alter table virtual_keys
  add column previous_key_hash bytea,
  add column previous_key_expires_at timestamptz,
  add column tags text[] not null default '{}';
create index virtual_keys_previous_key_hash on virtual_keys (previous_key_hash)
  where previous_key_hash is not null;

alter table request_logs add column tags text[] not null default '{}';
alter table gateway_operations add column tags text[] not null default '{}';
`;
