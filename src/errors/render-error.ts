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

/** Headers every error answer carries: `Retry-After` on 429 and 503 (DESIGN.md section 5, Headers). */
export function errorHeaders(error: GatewayError): Record<string, string> {
  if (error.status !== 429 && error.status !== 503) return {};
  return { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? 1))) };
}
