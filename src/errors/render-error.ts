import type { GatewayError } from './gateway-error.ts';

/** The two public error shapes of SPEC.md (Errors). */
export type ErrorShape = 'openai' | 'anthropic';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

export function renderErrorBody(
  error: GatewayError,
  shape: ErrorShape,
): OpenAIErrorBody | AnthropicErrorBody {
  if (shape === 'anthropic') {
    return { type: 'error', error: { type: error.anthropicType, message: error.publicMessage } };
  }
  return {
    error: { message: error.publicMessage, type: error.openaiType, param: error.param, code: error.code },
  };
}

/**
 * Headers of an error answer: `Retry-After` on 429 and 503 (DESIGN.md section 5, Headers), unless
 * the error says waiting cannot help (a spent budget), and `x-should-retry` where the error sets it.
 */
export function errorHeaders(error: GatewayError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.shouldRetry !== undefined) headers['x-should-retry'] = String(error.shouldRetry);
  if ((error.status === 429 || error.status === 503) && error.retryAfterSeconds !== null) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? 1)));
  }
  return headers;
}
