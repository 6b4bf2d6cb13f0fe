import type { RoutingStrategy } from './router-settings-schema.ts';

/** What a strategy knows of one available deployment of the pool when it picks. */
export interface PoolMember<T> {
  readonly item: T;
  /** The deployment's `weight` (> 0). */
  readonly weight: number;
  /** Attempts in flight on every replica; read only for `least-busy`. */
  readonly inFlight: number;
  /** Recent latency (EWMA, ms); null when not measured lately. Read only for `lowest-latency`. */
  readonly latencyMs: number | null;
}

/**
 * Deployments whose latency is within this fraction of the best count as equally fast, so
 * `lowest-latency` spreads load over near-equal deployments by weight instead of sending every
 * call to whichever was a millisecond quicker last time.
 */
export const LATENCY_TIE_RATIO = 0.1;

/**
 * Picks one member by the router settings' strategy (DESIGN.md section 5). `weighted`: random,
 * proportional to weight. `least-busy`: the fewest attempts in flight. `lowest-latency`: the best
 * recent latency; a deployment not measured lately is tried first, which is how it gets measured.
 * Ties are broken by weight, at random. `members` must not be empty.
 */
export function chooseMember<T>(
  strategy: RoutingStrategy,
  members: readonly PoolMember<T>[],
  random: () => number = Math.random,
): PoolMember<T> {
  switch (strategy) {
    case 'weighted':
      return pickWeighted(members, random);
    case 'least-busy':
      return pickWeighted(leastBusy(members), random);
    case 'lowest-latency':
      return pickWeighted(fastest(members), random);
  }
}

/** Weighted random choice by `weight`. */
export function pickWeighted<T extends { readonly weight: number }>(
  members: readonly T[],
  random: () => number = Math.random,
): T {
  let total = 0;
  for (const member of members) total += member.weight;
  let point = random() * total;
  for (const member of members) {
    point -= member.weight;
    if (point < 0) return member;
  }
  return members[members.length - 1];
}

function leastBusy<T>(members: readonly PoolMember<T>[]): PoolMember<T>[] {
  let fewest = Number.POSITIVE_INFINITY;
  for (const member of members) fewest = Math.min(fewest, member.inFlight);
  return members.filter((member) => member.inFlight === fewest);
}

function fastest<T>(members: readonly PoolMember<T>[]): PoolMember<T>[] {
  const unmeasured = members.filter((member) => member.latencyMs === null);
  if (unmeasured.length > 0) return unmeasured;
  let best = Number.POSITIVE_INFINITY;
  for (const member of members) best = Math.min(best, member.latencyMs as number);
  const bound = best * (1 + LATENCY_TIE_RATIO);
  return members.filter((member) => (member.latencyMs as number) <= bound);
}
