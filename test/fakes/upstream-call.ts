/**
 * Sends an adapter's UpstreamRequest with undici, as the pipeline does, for tests that drive the
 * adapters against the fakes over real HTTP. Not a fake itself: a test helper beside them.
 */
import type { Readable } from 'node:stream';
import { request } from 'undici';
import type {
  DeploymentTarget,
  OperationAdapter,
  ProviderAdapter,
  UpstreamErrorInfo,
  UpstreamRequest,
} from '../../src/providers/types.ts';
import { wireBody } from '../../src/upstream/upstream-client.ts';

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

export async function sendUpstream(upstream: UpstreamRequest, signal?: AbortSignal): Promise<UpstreamAnswer> {
  const answer = await request(upstream.url, { method: upstream.method, ...wireBody(upstream), signal });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { status: answer.statusCode, headers, body: answer.body };
}

/** The parsed body: JSON when the content type says so, else text. */
export async function readAnswer(answer: UpstreamAnswer): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer.body) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return (answer.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : text;
}

/** One JSON call through an adapter, as the pipeline makes it: the parsed answer, or the classified error. */
export async function callUpstream<Body, Answer>(
  provider: ProviderAdapter,
  operation: OperationAdapter<Body, Answer>,
  target: DeploymentTarget,
  body: Body,
): Promise<{ answer: Answer; error?: undefined } | { answer?: undefined; error: UpstreamErrorInfo }> {
  const response = await sendUpstream(operation.buildRequest({ target, body, stream: false }));
  const json = await readAnswer(response);
  if (response.status !== 200)
    return { error: provider.classifyError(response.status, json, response.headers) };
  return { answer: operation.parseResponse(json, target, body) };
}
