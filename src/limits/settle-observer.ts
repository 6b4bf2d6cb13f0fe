import type { LimitHolder, VirtualKey } from '../auth/principal.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import type { Deployment } from '../deployments/deployment.ts';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import type { CallContext, CallOutcome } from '../pipeline/call-context.ts';
import type { CallObserver } from '../pipeline/pipeline.ts';
import type { Usage } from '../providers/types.ts';
import { ADMISSION, type Admission, type ScopeReservation } from './admission.ts';
import { type ClampedCount, clampUsage } from './billed-usage.ts';
import { budgetWindow } from './budget-period.ts';
import { type CostModel, pricingOf } from './cost.ts';
import { LIMIT_KEYS } from './limit-keys.ts';
import type { ReservationLeases } from './reservation-leases.ts';
import {
  type ScopeCallSettlement,
  type ScopeTarget,
  SettlementBatcher,
  type SettlementTarget,
  type UnsentSettlements,
} from './settlement-batcher.ts';
import type { SpendWriter } from './spend-writer.ts';

export interface SettleDeps {
  cache: CacheStore;
  model: CostModel;
  /** The keys' spend writer (`virtual_keys`). */
  spend: SpendWriter;
  /** The teams' spend writer (`teams`); a key's team is charged each of its calls too. */
  teamSpend?: SpendWriter;
  leases: ReservationLeases;
  /** The clock a call without a budget reservation is put in its budget period by; Date.now by default. */
  now?(): number;
  /** A batch of a target was settled in the cache store (the budget thresholds look then). */
  onSettled?(target: SettlementTarget): void;
}

/**
 * Settlement (DESIGN.md section 4: settle actual tokens, cost, spend), the first call observer:
 * it sets `ctx.costCents` before the record observer reads it. Cost is the served deployment's
 * price (override, else catalog) applied to the upstream's usage. The TPM reservation becomes the
 * actual tokens, the budget reservation the actual cost (released when nothing was served), and
 * the cost goes to the batched `spend_cents` writer. Nothing here waits: the reservations are
 * settled in the background, one cache-store operation in flight per key, the calls that finish
 * meanwhile together after it (settlement-batcher.ts); shutdown lets them finish. Clamped usage
 * and an unpriced model (once per model and process) are published on their channels.
 */
export class SettleObserver implements CallObserver {
  readonly name = 'settle-limits';
  readonly #deps: SettleDeps;
  readonly #unpriced = new Set<string>();
  readonly #batcher: SettlementBatcher;

  constructor(deps: SettleDeps) {
    this.#deps = deps;
    this.#batcher = new SettlementBatcher({
      cache: deps.cache,
      leaseMs: deps.leases.leaseMs,
      onSettled: deps.onSettled,
    });
  }

  onCallFinished(ctx: CallContext, _outcome: CallOutcome): void {
    if (ctx.servedBy !== null && ctx.usage !== null) ctx.usage = this.#bounded(ctx, ctx.servedBy, ctx.usage);
    ctx.costCents = this.#costOf(ctx.servedBy, ctx.usage);
    const admission = ADMISSION.get(ctx);
    if (admission !== undefined && ctx.servedBy !== null) checkBound(ctx, ctx.servedBy, admission);
    if (ctx.principal.kind === 'virtual') this.#charge(ctx.principal.key, ctx.costCents, admission);
    if (admission !== undefined) this.#settle(ctx, admission);
  }

  /**
   * Adds the cost to the key's spend, and its team's, in the budget window the call was admitted
   * in (or, without a budget reservation, the one in force now).
   */
  #charge(key: VirtualKey, costCents: number, admission: Admission | undefined): void {
    const nowMs = this.#deps.now?.() ?? Date.now();
    const windowStart = (holder: LimitHolder, index: number): number | null =>
      admission?.scopes[index]?.budget?.periodStartMs ?? budgetWindow(holder, nowMs).startMs;
    this.#deps.spend.add(key.id, costCents, windowStart(key, 0));
    if (key.team !== null) this.#deps.teamSpend?.add(key.team.id, costCents, windowStart(key.team, 1));
  }

  /** The settlements of budget counter `counterKey` not yet sent (SettlementBatcher.unsent). */
  unsent(counterKey: string): UnsentSettlements {
    return this.#batcher.unsent(counterKey);
  }

  /** Resolves when the settlements of every call finished so far are done. */
  idle(): Promise<void> {
    return this.#batcher.idle();
  }

  /** The usage clamped to the served model's bounds; the record and the cost use this one. */
  #bounded(ctx: CallContext, servedBy: Deployment, usage: Usage): Usage {
    const limits = this.#deps.model.tokenLimits(servedBy.provider, servedBy.upstreamModel);
    const checked = clampUsage(usage, limits);
    if (checked.clamped.length > 0) publishClamped(servedBy, ctx.requestId, checked.clamped);
    return checked.usage;
  }

  #costOf(servedBy: Deployment | null, usage: Usage | null): number {
    // Nothing served (refused, failed, a cache hit) bills nothing upstream.
    if (servedBy === null || usage === null) return 0;
    const { pricing } = pricingOf(this.#deps.model, servedBy);
    if (pricing === null) {
      const model = `${servedBy.provider}/${servedBy.upstreamModel}`;
      if (!this.#unpriced.has(model)) {
        this.#unpriced.add(model);
        publishUnpriced(servedBy);
      }
      return 0;
    }
    return this.#deps.model.computeCostCents(usage, pricing);
  }

  /**
   * What the call changes in its key's TPM entry and budget: the budget reservation is always
   * released and replaced by the cost; a TPM entry already right is left alone.
   */
  #settle(ctx: CallContext, admission: Admission): void {
    const [key, team] = admission.scopes;
    const keyPart = this.#scopeSettlement(ctx, key);
    const teamPart = team === undefined ? null : this.#scopeSettlement(ctx, team);
    const changes = (part: ScopeCallSettlement | null) =>
      part !== null && (part.tokens !== null || part.budget !== null);
    if (!changes(keyPart) && !changes(teamPart)) return;
    const target: SettlementTarget = { key: targetOf(key), team: team === undefined ? null : targetOf(team) };
    this.#batcher.add(target, { requestId: ctx.requestId, ...keyPart, team: teamPart });
  }

  #scopeSettlement(ctx: CallContext, reservation: ScopeReservation): ScopeCallSettlement {
    const actual = reservation.reservedTokens === null ? null : actualTokens(ctx);
    const tokens = actual !== reservation.reservedTokens ? actual : null;
    const budget = reservation.budget === null ? null : { costCents: ctx.costCents };
    if (budget !== null) this.#deps.leases.release(reservation.scope, ctx.requestId);
    return { tokens, budget };
  }
}

/** The cache-store keys a scope's reservation settles into, and its budget to watch. */
function targetOf({ scope, budget }: ScopeReservation): ScopeTarget {
  const counterKey = LIMIT_KEYS.budget(scope, budget?.periodStartMs ?? null);
  const target: ScopeTarget = {
    tpm: LIMIT_KEYS.tpm(scope),
    budget: counterKey,
    held: LIMIT_KEYS.budgetHeld(scope),
  };
  if (budget !== null) {
    target.watch = {
      scope,
      budgetCents: budget.limit,
      period: budget.period,
      periodStartMs: budget.periodStartMs,
      counterKey,
      resetsAtMs: budget.resetsAtMs,
    };
  }
  return target;
}

function publishClamped(servedBy: Deployment, requestId: string, clamped: readonly ClampedCount[]): void {
  const channel = DIAGNOSTICS.usageClamped;
  if (!channel.hasSubscribers) return;
  channel.publish({ requestId, deploymentId: servedBy.id, upstreamModel: servedBy.upstreamModel, clamped });
}

/**
 * A cost past the worst case the call reserved (DESIGN.md section 5, Budget admission) is billed
 * in full all the same, and published: logged, counted and sent as an alert, since the budget's
 * overspend bound no longer holds by the difference.
 */
function checkBound(ctx: CallContext, servedBy: Deployment, admission: Admission): void {
  const reserved = admission.scopes[0]?.budget?.cents ?? admission.scopes[1]?.budget?.cents;
  if (reserved === undefined || ctx.costCents <= reserved) return;
  const channel = DIAGNOSTICS.budgetBoundExceeded;
  if (!channel.hasSubscribers) return;
  const billed = { reservedCents: reserved, billedCents: ctx.costCents };
  channel.publish({ requestId: ctx.requestId, keyId: admission.keyId, ...servedModel(servedBy), ...billed });
}

function publishUnpriced(servedBy: Deployment): void {
  const channel = DIAGNOSTICS.unpricedModel;
  if (channel.hasSubscribers) channel.publish(servedModel(servedBy));
}

function servedModel(servedBy: Deployment) {
  return { provider: servedBy.provider, upstreamModel: servedBy.upstreamModel, deploymentId: servedBy.id };
}

/**
 * The tokens a call used, for its TPM entry: the upstream's usage when known, 0 when nothing was
 * served (the reservation is released), and null (keep the reservation) when an answer was
 * served without usage, since the upstream did spend tokens on it.
 */
function actualTokens(ctx: CallContext): number | null {
  if (ctx.servedBy === null) return 0;
  if (ctx.usage === null) return null;
  return ctx.usage.inputTokens + ctx.usage.outputTokens;
}
