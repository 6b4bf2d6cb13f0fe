// Request tagger: adds routing and accounting hints to the request's `metadata` (OpenAI's
// free-form string map on Chat Completions and Responses) so upstream dashboards and logs can group
// calls. The tags come from `config.tags` (fixed), plus the calling key and the operation. Other
// operations are left alone: Anthropic's `metadata` takes only `user_id`.
//   { "tags": { "team": "support" } }

const TAGGED = new Set(['chat.completions', 'responses']);

export function beforeUpstream(call) {
  if (!TAGGED.has(call.operation)) return undefined;
  const metadata = { ...(call.body.metadata ?? {}) };
  for (const [name, value] of Object.entries(call.config?.tags ?? {})) metadata[name] = String(value);
  metadata.gateway_operation = call.operation;
  if (call.keyId !== null) metadata.gateway_key = call.keyId;
  return { body: { ...call.body, metadata } };
}
