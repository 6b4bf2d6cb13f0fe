import { GatewayError } from '../../errors/gateway-error.ts';
import type { UpstreamErrorInfo } from '../types.ts';

/**
 * Turns a classified upstream failure into the gateway's error. The provider's wording goes to
 * `detail` and `upstreamMessage`, never the public message (SPEC.md, Errors), unless the operator
 * chose UPSTREAM_ERROR_MESSAGES=passthrough; the field and code the upstream named, and the token
 * counts of a context-window refusal, are kept for the client.
 */
export function upstreamGatewayError(
  info: UpstreamErrorInfo,
  detail?: Record<string, unknown>,
): GatewayError {
  return new GatewayError(info.code, {
    errorClass: info.errorClass,
    retryAfterSeconds: info.retryAfterSeconds,
    param: info.param,
    upstreamCode: info.upstreamCode,
    tokenCounts: info.tokenCounts,
    upstreamMessage: info.providerMessage,
    detail: { providerMessage: info.providerMessage, ...detail },
  });
}

/** A stream that ended before its terminal event: never a clean end (DESIGN.md section 4). */
export function truncatedStreamError(provider: string, expected: string): GatewayError {
  return new GatewayError('upstream_error', {
    detail: { provider, reason: `stream ended before ${expected}` },
  });
}

/** An upstream answer that does not match the provider's documented shape. */
export function malformedAnswerError(provider: string, what: string, issues: unknown): GatewayError {
  return new GatewayError('upstream_error', {
    detail: { provider, reason: `malformed ${what}`, issues },
  });
}
