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

/**
 * The header names of each unit, written once: names built per call were new strings that each
 * store into the headers had to look up in V8's string table (docs/decisions/hot-path.md,
 * Rate-limit header names written once).
 */
const HEADER_NAMES = {
  requests: ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
  tokens: ['x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
} as const;

function addWindow(
  headers: Record<string, string>,
  unit: 'requests' | 'tokens',
  window: WindowDecision,
): void {
  const [limit, remaining, reset] = HEADER_NAMES[unit];
  headers[limit] = String(window.limit);
  headers[remaining] = String(Math.max(0, Math.floor(window.remaining)));
  headers[reset] = formatResetDuration(window.resetMs);
}
