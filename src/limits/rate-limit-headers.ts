import type { WindowDecision } from '../cache/cache-store.ts';
import { formatResetDuration } from './duration-format.ts';

/**
 * OpenAI's rate-limit headers (DESIGN.md section 5, Headers) for the windows a key has: the
 * `-requests` trio when it has an RPM limit, the `-tokens` trio when it has a TPM limit. Remaining
 * counts include this call; resets are the time until the window is clear, as Go durations.
 */
export function rateLimitHeaders(
  requests: WindowDecision | null,
  tokens: WindowDecision | null,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (requests !== null) addWindow(headers, 'requests', requests);
  if (tokens !== null) addWindow(headers, 'tokens', tokens);
  return headers;
}

function addWindow(
  headers: Record<string, string>,
  unit: 'requests' | 'tokens',
  window: WindowDecision,
): void {
  headers[`x-ratelimit-limit-${unit}`] = String(window.limit);
  headers[`x-ratelimit-remaining-${unit}`] = String(Math.max(0, Math.floor(window.remaining)));
  headers[`x-ratelimit-reset-${unit}`] = formatResetDuration(window.resetMs);
}
