/**
 * The longest an upstream's `Retry-After` is honoured within one call: past half a minute the
 * client is better served by a fallback, or by an answer it can retry on its own terms, than by
 * a connection held open while nothing happens.
 */
export const MAX_RETRY_AFTER_MS = 30_000;

export interface RetryDelayInput {
  /** The router settings' pause before each retry (`retries.backoffMs`). */
  backoffMs: number;
  /** The upstream's `Retry-After` on the failed attempt, in seconds (GatewayError.retryAfterSeconds). */
  retryAfterSeconds: number | undefined;
  /** True when the retry goes to the deployment that asked to wait; another one need not. */
  sameDeployment: boolean;
  /** The attempt's total timeout (`timeouts.totalMs`): no wait is longer than an attempt may be. */
  totalMs: number;
}

/**
 * Milliseconds to wait before a retry: the backoff, or the upstream's `Retry-After` when the retry
 * goes back to the deployment that sent it and asked for longer. Null when that deployment asked
 * for more than may be waited (MAX_RETRY_AFTER_MS, the total timeout): it is not retried in this call.
 */
export function retryDelayMs(input: RetryDelayInput): number | null {
  const capMs = Math.min(MAX_RETRY_AFTER_MS, input.totalMs);
  let delayMs = Math.max(0, input.backoffMs);
  if (input.sameDeployment && input.retryAfterSeconds !== undefined) {
    const askedMs = Math.ceil(Math.max(0, input.retryAfterSeconds) * 1000);
    if (askedMs > capMs) return null;
    delayMs = Math.max(delayMs, askedMs);
  }
  return Math.min(delayMs, capMs);
}
