import type { CacheStore } from '../cache/cache-store.ts';
import type { Deployment } from '../deployments/deployment.ts';
import type { CallContext, CallOutcome } from '../pipeline/call-context.ts';
import type { CallObserver } from '../pipeline/pipeline.ts';
import type { Usage } from '../providers/types.ts';
import { type Admission, admissionOf } from './admission.ts';
import { type CostModel, pricingOf } from './cost.ts';
import type { ReservationLeases } from './reservation-leases.ts';
import { SettlementBatcher } from './settlement-batcher.ts';
import type { SpendWriter } from './spend-writer.ts';
import { type ClampedCount, clampUsage } from './usage-bounds.ts';

export interface SettleDeps {
  cache: CacheStore;
  model: CostModel;
  spend: SpendWriter;
  leases: ReservationLeases;
  /** An upstream reported usage outside the model's bounds; it was clamped (usage-bounds.ts). */
  onUsageClamped(deployment: Deployment, requestId: string, clamped: readonly ClampedCount[]): void;
  /** Once per model and process: the served model has no price, so its calls cost 0. */
  onUnpricedModel(deployment: Deployment): void;
  /** Reservations could not be reconciled (the cache store failed); the calls are not affected. */
  onSettleError(error: unknown, requestIds: readonly string[]): void;
}

/**
 * Settlement (DESIGN.md section 4: settle actual tokens, cost, spend), the first call observer:
 * it sets `ctx.costCents` before the record observer reads it. Cost is the served deployment's
 * price (override, else catalog) applied to the upstream's usage. The TPM reservation becomes the
 * actual tokens, the budget reservation the actual cost (released when nothing was served), and
 * the cost goes to the batched `spend_cents` writer. Nothing here waits: the reservations are
 * settled in the background, one cache-store operation in flight per key, the calls that finish
 * meanwhile together after it (settlement-batcher.ts); shutdown lets them finish.
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
      onError: deps.onSettleError,
    });
  }

  onCallFinished(ctx: CallContext, _outcome: CallOutcome): void {
    if (ctx.servedBy !== null && ctx.usage !== null) ctx.usage = this.#bounded(ctx, ctx.servedBy, ctx.usage);
    ctx.costCents = this.#costOf(ctx.servedBy, ctx.usage);
    if (ctx.principal.kind === 'virtual') this.#deps.spend.add(ctx.principal.key.id, ctx.costCents);
    const admission = admissionOf(ctx);
    if (admission !== undefined) this.#settle(ctx, admission);
  }

  /** Resolves when the settlements of every call finished so far are done. */
  idle(): Promise<void> {
    return this.#batcher.idle();
  }

  /** The usage clamped to the served model's bounds; the record and the cost use this one. */
  #bounded(ctx: CallContext, servedBy: Deployment, usage: Usage): Usage {
    const limits = this.#deps.model.tokenLimits(servedBy.provider, servedBy.upstreamModel);
    const checked = clampUsage(usage, limits);
    if (checked.clamped.length > 0) this.#deps.onUsageClamped(servedBy, ctx.requestId, checked.clamped);
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
        this.#deps.onUnpricedModel(servedBy);
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
    const actual = admission.reservedTokens === null ? null : actualTokens(ctx);
    const tokens = actual !== admission.reservedTokens ? actual : null;
    const budget = admission.reservedCents === null ? null : { costCents: ctx.costCents };
    if (budget !== null) this.#deps.leases.release(admission.keyId, ctx.requestId);
    if (tokens === null && budget === null) return;
    this.#batcher.add(admission.keyId, { requestId: ctx.requestId, tokens, budget });
  }
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
