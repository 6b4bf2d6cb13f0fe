import { scrubSecretText } from '../diagnostics/scrub-secrets.ts';
import type { GatewayError, TokenCounts } from './gateway-error.ts';

/** The two public error shapes of SPEC.md (Errors). */
export type ErrorShape = 'openai' | 'anthropic';

/**
 * UPSTREAM_ERROR_MESSAGES: `generic` (SPEC.md, Errors: the public message never carries provider
 * wording) or `passthrough` (the upstream's message, scrubbed of credentials, for operators who
 * want it).
 */
export type UpstreamErrorMessages = 'generic' | 'passthrough';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

/**
 * Anthropic's own wording for a context-window refusal, with the counts when known: Claude
 * Code's automatic compaction looks for `prompt is too long` (and reads the counts); for input
 * and `max_tokens` together over the window, it lowers `max_tokens` on Anthropic's `input length
 * and \`max_tokens\` exceed context limit: X + Y > Z` instead of compacting.
 */
function promptTooLong(counts: TokenCounts | undefined): string {
  if (counts === undefined) return 'prompt is too long';
  if (counts.outputTokens !== undefined) {
    const sum = `${counts.inputTokens} + ${counts.outputTokens} > ${counts.limitTokens}`;
    return `input length and \`max_tokens\` exceed context limit: ${sum}, decrease input length or \`max_tokens\` and try again`;
  }
  return `prompt is too long: ${counts.inputTokens} tokens > ${counts.limitTokens} maximum`;
}

function hasUpstreamMessage(error: GatewayError, messages: UpstreamErrorMessages): boolean {
  return messages === 'passthrough' && error.upstreamMessage !== undefined && error.upstreamMessage !== '';
}

function publicMessage(error: GatewayError, messages: UpstreamErrorMessages): string {
  if (hasUpstreamMessage(error, messages) && error.upstreamMessage !== undefined) {
    // Scrubbed of the deployment's key at the attempt (scrubbedFailure); of credential shapes again here.
    return scrubSecretText(error.upstreamMessage);
  }
  return error.publicMessage;
}

export function renderErrorBody(
  error: GatewayError,
  shape: ErrorShape,
  messages: UpstreamErrorMessages = 'generic',
): OpenAIErrorBody | AnthropicErrorBody {
  if (shape === 'anthropic') {
    // Passthrough keeps the upstream's own wording, counts and all, for a context window too.
    const message =
      error.errorClass === 'context_window' && !hasUpstreamMessage(error, messages)
        ? promptTooLong(error.tokenCounts)
        : publicMessage(error, messages);
    return { type: 'error', error: { type: error.anthropicType, message } };
  }
  return {
    error: {
      message: publicMessage(error, messages),
      type: error.openaiType,
      param: error.param,
      code: error.upstreamCode ?? error.code,
    },
  };
}

/** The answer's status in a shape: Anthropic's own where it has one (529 `overloaded_error`). */
export function errorStatus(error: GatewayError, shape: ErrorShape): number {
  return shape === 'anthropic' ? error.anthropicStatus : error.status;
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
