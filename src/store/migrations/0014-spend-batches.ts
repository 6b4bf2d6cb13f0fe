/**
 * The spend batches applied (issue 30 finding 10): the spend writer names each batch, and its
 * statement adds the batch's deltas only when it can insert that name here. A batch whose answer
 * was lost (a statement past its bound that landed anyway) is sent again under the same name and
 * adds nothing, so the writer can bound its statements as tightly as the request path does, and
 * spend held through a Postgres stall lands within a second of its end instead of after a 30 s
 * statement bound. Rows older than an hour are pruned by the same statement
 * (src/limits/spend-statement.ts): far longer than any retry of one batch.
 */
export const sql = `
create table spend_batches (
  id text primary key,
  applied_at timestamptz not null default now()
);
create index spend_batches_applied_at on spend_batches (applied_at);
`;
