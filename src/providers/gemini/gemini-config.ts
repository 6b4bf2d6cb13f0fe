/**
 * Where and how a Gemini deployment is called (Gemini API reference: "API versions", "Generating
 * content", "Embeddings"; the key travels in `x-goog-api-key`, never in the query).
 */
import { GatewayError } from '../../errors/gateway-error.ts';
import { joinUrl } from '../shared/join-url.ts';
import type { DeploymentTarget } from '../types.ts';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
export const GEMINI_API_KEY_HEADER = 'x-goog-api-key';

export const GEMINI_METHODS = Object.freeze({
  generate: ':generateContent',
  /** `alt=sse` asks for server-sent events instead of a JSON array streamed in pieces. */
  stream: ':streamGenerateContent?alt=sse',
  embed: ':batchEmbedContents',
  countTokens: ':countTokens',
});

/** The model's resource name: `models/gemini-2.0-flash`, or a full name such as `tunedModels/x` as given. */
export function geminiModelName(upstreamModel: string): string {
  return upstreamModel.includes('/') ? upstreamModel : `models/${upstreamModel}`;
}

export function geminiUrl(target: DeploymentTarget, method: keyof typeof GEMINI_METHODS): string {
  const path = geminiModelName(target.upstreamModel).split('/').map(encodeURIComponent).join('/');
  return joinUrl(target.baseUrl ?? GEMINI_DEFAULT_BASE_URL, `${path}${GEMINI_METHODS[method]}`);
}

export function geminiHeaders(target: DeploymentTarget, stream: boolean): Record<string, string> {
  if (!target.apiKey) {
    throw new GatewayError('upstream_error', {
      message: 'The deployment is misconfigured.',
      detail: { field: 'apiKey', reason: 'missing Gemini API key' },
    });
  }
  return {
    [GEMINI_API_KEY_HEADER]: target.apiKey,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
}
