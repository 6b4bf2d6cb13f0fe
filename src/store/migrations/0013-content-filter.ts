/**
 * What a provider's content filter withheld from an answer it gave (issue 34 item 3): Azure
 * OpenAI's filtered categories with their severity, for a 200 answer that ends with
 * `finish_reason: "content_filter"` (a refusal with 400 already keeps Azure's body in the error
 * detail). A list of `{ source, index, category, severity?, blocklists? }`
 * (src/formats/content-filter.ts) on the call's record, null when nothing was filtered. A
 * nullable column without a default: adding it rewrites no row.
 */
export const sql = `
alter table gateway_operations add column content_filter jsonb;
alter table request_logs add column content_filter jsonb;
`;
