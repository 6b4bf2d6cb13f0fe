import type {
  BudgetDecision,
  CallAdmissionDecision,
  CallAdmissionRequest,
  WindowDecision,
} from './cache-store.ts';

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
export function windowDecision(reply: unknown, limit: number, at = 0): WindowDecision {
  const fields = reply as string[];
  const used = Number(fields[at + 1]);
  return {
    admitted: fields[at] === '1',
    used,
    limit,
    remaining: Math.max(0, limit - used),
    retryAfterMs: Number(fields[at + 2]),
    resetMs: Number(fields[at + 3]),
  };
}

/** ADMIT_CALL's budget `{status, spent, held}`: '0' missing, '1' admitted, '2' rejected. */
function budgetDecision(reply: unknown, at: number): BudgetDecision {
  const fields = reply as string[];
  const status = fields[at];
  if (status === '0') return { status: 'missing' };
  return {
    status: status === '1' ? 'admitted' : 'rejected',
    spent: Number(fields[at + 1]),
    held: Number(fields[at + 2]),
  };
}

/** ADMIT_CALL's `{admitted}`, four fields per window present, then the budget's three. */
export function callAdmission(reply: unknown, request: CallAdmissionRequest): CallAdmissionDecision {
  const fields = reply as string[];
  let at = 1;
  const next = (limit: number) => {
    const decision = windowDecision(fields, limit, at);
    at += 4;
    return decision;
  };
  const requests = request.requests && next(request.requests.limit);
  const tokens = request.tokens && next(request.tokens.limit);
  return {
    admitted: fields[0] === '1',
    requests,
    tokens,
    budget: request.budget && budgetDecision(fields, at),
  };
}
