import { GatewayError } from '../../errors/gateway-error.ts';
import type { UpstreamErrorInfo } from '../types.ts';

/**
 * Turns a classified upstream failure into the gateway's error. The provider's wording goes to
 * `detail` only (SPEC.md, Errors: the public message never carries it).
 */
export function upstreamGatewayError(
  info: UpstreamErrorInfo,
  detail?: Record<string, unknown>,
): GatewayError {
  return new GatewayError(info.code, {
    errorClass: info.errorClass,
    retryAfterSeconds: info.retryAfterSeconds,
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
