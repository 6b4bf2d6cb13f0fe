/**
 * The requests the load generators send. The same small chat body everywhere, so that every
 * scenario moves the same bytes and only the path between client and upstream changes.
 */

export interface BenchRequest {
  method: 'POST';
  /** Path and query on the target origin. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The public model of the bench deployment. */
export const BENCH_MODEL = 'bench-model';

const MESSAGES = [
  { role: 'system', content: 'You are the benchmark. Answer briefly.' },
  { role: 'user', content: 'Write sixteen words about routing gateways.' },
];

function bearer(credential: string): Record<string, string> {
  return { 'content-type': 'application/json', authorization: `Bearer ${credential}` };
}

/** OpenAI Chat Completions, JSON or SSE (with usage, as the gateway asks of the upstream). */
export function chatRequest(model: string, credential: string, stream: boolean): BenchRequest {
  const body = stream
    ? { model, messages: MESSAGES, max_tokens: 64, stream: true, stream_options: { include_usage: true } }
    : { model, messages: MESSAGES, max_tokens: 64 };
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    headers: bearer(credential),
    body: JSON.stringify(body),
  };
}

/** Anthropic Messages, as the official SDK sends it (x-api-key, anthropic-version). */
export function messagesRequest(model: string, credential: string, stream = false): BenchRequest {
  return {
    method: 'POST',
    path: '/v1/messages',
    headers: {
      'content-type': 'application/json',
      'x-api-key': credential,
      'anthropic-version': '2023-06-01',
    },
    body: JSON.stringify({
      model,
      max_tokens: 64,
      system: MESSAGES[0].content,
      messages: [{ role: 'user', content: MESSAGES[1].content }],
      ...(stream ? { stream: true } : {}),
    }),
  };
}
