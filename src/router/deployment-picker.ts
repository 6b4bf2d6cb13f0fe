import type { Candidate } from '../deployments/candidate-pools.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { CooldownTracker } from './cooldown-tracker.ts';
import type { DeploymentLimits } from './deployment-limits.ts';
import { type InFlightTracker, inFlightLifetimeMs } from './in-flight-tracker.ts';
import type { LatencyTracker } from './latency-tracker.ts';
import type { RouterSettings } from './router-settings-schema.ts';
import { chooseMember, type PoolMember } from './strategy.ts';

export interface PickerDeps {
  cooldowns: CooldownTracker;
  inFlight: InFlightTracker;
  latency: LatencyTracker;
  limits: DeploymentLimits;
  random?: () => number;
}

export interface PickRequest {
  settings: RouterSettings;
  /** Deployments already tried for this model in this call: the others are preferred. */
  tried: ReadonlySet<string>;
  /** Deployments not to pick again in this call (asked for a longer wait than may be given). */
  excluded: ReadonlySet<string>;
  attemptId: string;
  /** The call's TPM reservation under a deployment's limit. */
  tokens(limit: number): number;
}

/**
 * `picked`: go. `unavailable`: every deployment considered is cooling down or over its own
 * limits, and `error` says so (429 with the earliest Retry-After). `none`: nothing left to consider.
 */
export type Pick =
  | { kind: 'picked'; candidate: Candidate }
  | { kind: 'unavailable'; error: GatewayError }
  | { kind: 'none' };

interface MemberState {
  candidate: Candidate;
  cooldownMs: number;
}

/**
 * Picks the deployment of one attempt (DESIGN.md section 4: pool, strategy, cooldown): drops the
 * cooling ones, prefers those not tried yet in this call, lets the strategy choose, and admits the
 * choice on the deployment's own limits; a deployment over them is dropped like a cooling one and
 * the strategy chooses again.
 *
 * Round trips to the cache store are what a pick costs, so it makes only those the decision needs:
 * cooldowns come from this replica's mirror (CooldownTracker), the shared in-flight counts and
 * latencies are read only under the strategy that uses them and only when it has more than one
 * deployment to choose from, and limits are checked only on deployments that have them. A failed
 * read counts as "idle, unmeasured": routing must go on when the cache store hiccups.
 */
export class DeploymentPicker {
  readonly #deps: PickerDeps;
  readonly #random: () => number;

  constructor(deps: PickerDeps) {
    this.#deps = deps;
    this.#random = deps.random ?? Math.random;
  }

  async pick(pool: readonly Candidate[], request: PickRequest): Promise<Pick> {
    if (request.tried.size > 0 || request.excluded.size > 0 || request.settings.strategy !== 'weighted') {
      return this.#pickAmong(pool, request, null, []);
    }
    const drawn = this.#draw(pool);
    const read = this.#deps.cooldowns.sync(drawn.deployment.id);
    if (read !== null) await read;
    if (this.#deps.cooldowns.remainingMs(drawn.deployment.id) > 0)
      return this.#pickAmong(pool, request, null, []);
    const decision = await this.#deps.limits.admit(drawn.deployment, request.attemptId, request.tokens);
    if (decision.admitted) return { kind: 'picked', candidate: drawn };
    return this.#pickAmong(pool, request, drawn, [decision.retryAfterMs]);
  }

  /**
   * A call's first pick under `weighted`: one member drawn by weight from the whole pool. When it
   * is in (not cooling, within its limits) it is what a draw among the members that are in would
   * give, with the same odds (a draw that lands on a cooling member falls back to #pickAmong,
   * which draws again among the others); so a pool of thousands costs a pick one cooldown look-up
   * and a binary search, not a walk of every member.
   */
  #draw(pool: readonly Candidate[]): Candidate {
    if (pool.length === 1) return pool[0];
    const totals = cumulativeWeights(pool);
    const point = this.#random() * totals[totals.length - 1];
    let low = 0;
    let high = totals.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (totals[middle] > point) high = middle;
      else low = middle + 1;
    }
    return pool[low];
  }

  /** Every member considered: `refused` was drawn and refused by its limits (`limitedMs`) already. */
  async #pickAmong(
    pool: readonly Candidate[],
    request: PickRequest,
    refused: Candidate | null,
    limitedMs: number[],
  ): Promise<Pick> {
    const considered = pool.filter((candidate) => !request.excluded.has(candidate.deployment.id));
    if (considered.length === 0) return { kind: 'none' };
    await this.#syncCooldowns(considered);
    const states = considered.map((candidate) => ({
      candidate,
      cooldownMs: this.#deps.cooldowns.remainingMs(candidate.deployment.id),
    }));
    let available = states.filter((state) => state.cooldownMs === 0 && state.candidate !== refused);
    const members = new Map<Candidate, PoolMember<Candidate>>();
    while (available.length > 0) {
      const fresh = available.filter((state) => !request.tried.has(state.candidate.deployment.id));
      const chosen = await this.#choose(fresh.length > 0 ? fresh : available, request.settings, members);
      const decision = await this.#deps.limits.admit(chosen.deployment, request.attemptId, request.tokens);
      if (decision.admitted) return { kind: 'picked', candidate: chosen };
      limitedMs.push(decision.retryAfterMs);
      available = available.filter((state) => state.candidate !== chosen);
    }
    return { kind: 'unavailable', error: unavailable(states, limitedMs) };
  }

  /** Waits only for the cooldown reads of deployments this replica never routed to before. */
  async #syncCooldowns(considered: readonly Candidate[]): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const candidate of considered) {
      const read = this.#deps.cooldowns.sync(candidate.deployment.id);
      if (read !== null) pending.push(read);
    }
    if (pending.length > 0) await Promise.all(pending);
  }

  /** `members` keeps what was read for the strategy, for the next choice of the same pick. */
  async #choose(
    choices: readonly MemberState[],
    settings: RouterSettings,
    members: Map<Candidate, PoolMember<Candidate>>,
  ): Promise<Candidate> {
    if (choices.length === 1) return choices[0].candidate;
    if (settings.strategy !== 'weighted') {
      const unread = choices.filter((state) => !members.has(state.candidate));
      const read = await Promise.all(unread.map((state) => this.#read(state.candidate, settings)));
      for (const member of read) members.set(member.item, member);
    }
    const pool = choices.map((state) => members.get(state.candidate) ?? idle(state.candidate));
    return chooseMember(settings.strategy, pool, this.#random).item;
  }

  /** The shared state the strategy in force ranks by: in-flight count or latency. */
  async #read(candidate: Candidate, settings: RouterSettings): Promise<PoolMember<Candidate>> {
    const { id } = candidate.deployment;
    if (settings.strategy === 'least-busy') {
      const lifetimeMs = inFlightLifetimeMs(settings.timeouts.totalMs);
      return { ...idle(candidate), inFlight: await this.#deps.inFlight.count(id, lifetimeMs) };
    }
    return { ...idle(candidate), latencyMs: await this.#deps.latency.latencyMs(id) };
  }
}

const totalsOfPool = new WeakMap<readonly Candidate[], Float64Array>();

/** The running sums of the members' weights, kept with the pool (built once per directory load). */
function cumulativeWeights(pool: readonly Candidate[]): Float64Array {
  let totals = totalsOfPool.get(pool);
  if (totals === undefined) {
    totals = new Float64Array(pool.length);
    let sum = 0;
    for (let index = 0; index < pool.length; index++) {
      sum += pool[index].deployment.weight;
      totals[index] = sum;
    }
    totalsOfPool.set(pool, totals);
  }
  return totals;
}

/** A member as `weighted` sees it: no count or latency read. */
function idle(candidate: Candidate): PoolMember<Candidate> {
  return { item: candidate, weight: candidate.deployment.weight, inFlight: 0, latencyMs: null };
}

/**
 * Every deployment is cooling: 429 `deployments_in_cooldown`, Retry-After at the earliest end of
 * a cooldown (SPEC.md, States and transitions). Some are over their own limits: 429
 * `rate_limit_exceeded` ("or the upstream's", SPEC.md Limits), Retry-After at the earliest moment
 * any deployment is back.
 */
function unavailable(states: readonly MemberState[], limitedMs: readonly number[]): GatewayError {
  const coolingMs = states.filter((state) => state.cooldownMs > 0).map((state) => state.cooldownMs);
  const soonestMs = Math.min(...coolingMs, ...limitedMs);
  const retryAfterSeconds = Number.isFinite(soonestMs) ? Math.max(1, Math.ceil(soonestMs / 1000)) : 1;
  const deployments = states.map((state) => state.candidate.deployment.id);
  if (limitedMs.length === 0) {
    return new GatewayError('deployments_in_cooldown', { retryAfterSeconds, detail: { deployments } });
  }
  return new GatewayError('rate_limit_exceeded', {
    retryAfterSeconds,
    detail: { reason: 'every deployment is cooling down or over its own rpmLimit/tpmLimit', deployments },
  });
}
