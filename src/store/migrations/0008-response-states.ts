/**
 * Stored Responses state (SPEC.md, Response state; DESIGN.md section 5, Stored responses): one row
 * per stored response, holding the whole conversation it ends (its input items, the earlier turns
 * included, and its response object), so a follow-up reads one row and a turn outlives the
 * expiry of the turns before it.
 *
 * The content is plain JSON text in variant A (`content`) and a purpose-bound envelope in variant
 * B (`envelope`, with its key id mirrored for rotation); exactly one of the two is set. Expiry:
 * variant A fixes each row's `expires_at` when it is written; variant B expires rows
 * RESPONSES_STATE_RETENTION_DAYS after `created_at`. `owner_key_id` is null for the master key.
 */
export const sql = `
create table response_states (
  id text primary key,
  owner_key_id text,
  public_model text not null,
  status text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  content text,
  envelope text,
  envelope_key_id text,
  check ((content is null) <> (envelope is null))
);
create index response_states_created_at on response_states (created_at);
create index response_states_expires_at on response_states (expires_at);
create index response_states_envelope_key_id on response_states (envelope_key_id) where envelope is not null;
`;
