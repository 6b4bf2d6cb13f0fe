import type { CounterDecision, WindowDecision } from './cache-store.ts';

/**
 * Reading the replies of the Redis cache store's raw commands (RESP2, as node-redis decodes it
 * without a type mapping: bulk strings as strings, integers as numbers, nil as null). The
 * scripts answer numbers as strings (redis-scripts.ts).
 */

export function ignoreReply(): void {}

export function isOk(reply: unknown): boolean {
  return reply === 'OK';
}

/** PTTL answers -2 for a missing key and -1 for a key without expiry. */
export function remainingTtl(reply: number): number | null {
  return reply < 0 ? null : reply;
}

/** The scripts' `{admitted, used, retryAfterMs, resetMs}`, numbers as strings (redis-scripts.ts). */
export function windowDecision(reply: unknown, limit: number): WindowDecision {
  const fields = reply as [string, string, string, string];
  const used = Number(fields[1]);
  return {
    admitted: fields[0] === '1',
    used,
    limit,
    remaining: Math.max(0, limit - used),
    retryAfterMs: Number(fields[2]),
    resetMs: Number(fields[3]),
  };
}

/** COUNTER_RESERVE's `{status, value}`: '0' missing, '1' admitted, '2' rejected. */
export function counterDecision(reply: unknown): CounterDecision {
  const [status, value] = reply as [string, string];
  if (status === '0') return { status: 'missing' };
  return { status: status === '1' ? 'admitted' : 'rejected', value: Number(value) };
}
