/**
 * Whose limits a counter holds: a virtual key or a team. `hashTag` is the Redis Cluster hash tag
 * its counters share: the key's own id, or its team's, so that the counters of a key and of its
 * team land in one slot and one script decides them all (DESIGN.md section 5, Governance).
 */
export interface LimitScope {
  kind: 'key' | 'team';
  id: string;
  hashTag: string;
}

export function keyScope(key: { id: string; team: { id: string } | null }): LimitScope {
  return { kind: 'key', id: key.id, hashTag: key.team?.id ?? key.id };
}

export function teamScope(teamId: string): LimitScope {
  return { kind: 'team', id: teamId, hashTag: teamId };
}

/** A scope, or a virtual key's id standing for the key without a team. */
export type ScopeRef = LimitScope | string;

export function scopeOf(ref: ScopeRef): LimitScope {
  return typeof ref === 'string' ? { kind: 'key', id: ref, hashTag: ref } : ref;
}

function base(ref: ScopeRef): string {
  const scope = scopeOf(ref);
  return scope.hashTag === scope.id ? `rl:{${scope.id}}` : `rl:{${scope.hashTag}}:${scope.id}`;
}

/** Cache-store keys of one scope's limits, all under the scope's `{hash-tag}` (src/cache/redis-keys.ts). */
export const LIMIT_KEYS = Object.freeze({
  rpm: (scope: ScopeRef) => `${base(scope)}:rpm`,
  tpm: (scope: ScopeRef) => `${base(scope)}:tpm`,
  /**
   * Settled spend (cents) of the budget window starting at `periodStartMs` (budget-period.ts);
   * without one (a lifetime budget never reset), the cumulative spend. A new period is a new
   * counter, so the budget rolls over on every replica at once, with no job. Not `:spend`: that
   * counter of earlier releases also held reservations.
   */
  budget: (scope: ScopeRef, periodStartMs: number | null = null) =>
    periodStartMs === null ? `${base(scope)}:spent` : `${base(scope)}:spent:${periodStartMs}`,
  /** The reservations of the calls in flight: a sliding log whose window is the lease. */
  budgetHeld: (scope: ScopeRef) => `${base(scope)}:held`,
});

/** RPM and TPM are per minute: sliding windows of 60 s (a sliding log, exact at the boundary). */
export const RATE_WINDOW_MS = 60_000;
