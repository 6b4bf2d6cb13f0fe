import type {
  BudgetDecision,
  CallAdmissionDecision,
  CallAdmissionRequest,
  ScopeDecision,
  ScopeLimits,
  WindowDecision,
} from './cache-store.ts';
import type { RedisScript } from './redis-scripts.ts';

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

/** The scopes of a per-call script, in order: the key's, then its team's when present. */
export function scopesOf<Scope>(request: Scope & { team?: Scope | null }): Scope[] {
  return request.team == null ? [request] : [request, request.team];
}

/**
 * EVALSHA arguments of a script that reads its arguments as one JSON array of strings (ADMIT_CALL
 * and SETTLE_CALLS decode it with cjson): node-redis encodes every argument by concatenation and
 * measures its UTF-8 length, the largest part of a virtual-key call's cost in the client
 * (docs/decisions/hot-path.md, Per-call scripts' arguments as one JSON array).
 */
export function packedScriptArgs(
  script: RedisScript,
  keys: readonly string[],
  argv: readonly string[],
): string[] {
  return ['EVALSHA', script.sha1, String(keys.length), ...keys, JSON.stringify(argv)];
}

/** ADMIT_CALL's `{admitted}`, then per scope four fields per window present and the budget's three. */
export function callAdmission(reply: unknown, request: CallAdmissionRequest): CallAdmissionDecision {
  const fields = reply as string[];
  let at = 1;
  const scope = (limits: ScopeLimits): ScopeDecision => {
    const next = (limit: number) => {
      const decision = windowDecision(fields, limit, at);
      at += 4;
      return decision;
    };
    const requests = limits.requests && next(limits.requests.limit);
    const tokens = limits.tokens && next(limits.tokens.limit);
    const budget = limits.budget && budgetDecision(fields, at);
    if (limits.budget !== null) at += 3;
    return { requests, tokens, budget };
  };
  const key = scope(request);
  const team = request.team == null ? null : scope(request.team);
  return { admitted: fields[0] === '1', ...key, team };
}
