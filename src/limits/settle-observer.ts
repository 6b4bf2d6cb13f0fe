import type { CacheStore } from '../cache/cache-store.ts';
import type { Deployment } from '../deployments/deployment.ts';
import type { CallContext, CallOutcome } from '../pipeline/call-context.ts';
import type { CallObserver } from '../pipeline/pipeline.ts';
import type { Usage } from '../providers/types.ts';
import { type Admission, admissionOf } from './admission.ts';
import type { CostModel } from './cost-model.ts';
import { pricingOf } from './deployment-pricing.ts';
import { LIMIT_KEYS, RATE_WINDOW_MS } from './limit-keys.ts';
import type { SpendWriter } from './spend-writer.ts';

export interface SettleDeps {
  cache: CacheStore;
  model: CostModel;
  spend: SpendWriter;
  /** Once per model and process: the served model has no price, so its calls cost 0. */
  onUnpricedModel(deployment: Deployment): void;
  /** A reservation could not be reconciled (the cache store failed); the call is not affected. */
  onSettleError(error: unknown, ctx: CallContext): void;
}

/**
 * Settlement (DESIGN.md section 4: settle actual tokens, cost, spend), the first call observer:
 * it sets `ctx.costCents` before the record observer reads it. Cost is the served deployment's
 * price (override, else catalog) applied to the upstream's usage. The TPM reservation becomes the
 * actual tokens, the budget reservation the actual cost (released when nothing was served), and
 * the cost goes to the batched `spend_cents` writer. Nothing here waits: cache-store work runs in
 * the background, tracked so shutdown can let it finish.
 */
export class SettleObserver implements CallObserver {
  readonly name = 'settle-limits';
  readonly #deps: SettleDeps;
  readonly #unpriced = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(deps: SettleDeps) {
    this.#deps = deps;
  }

  onCallFinished(ctx: CallContext, _outcome: CallOutcome): void {
    ctx.costCents = this.#costOf(ctx.servedBy, ctx.usage);
    if (ctx.principal.kind === 'virtual') this.#deps.spend.add(ctx.principal.key.id, ctx.costCents);
    const admission = admissionOf(ctx);
    if (admission !== undefined) this.#track(this.#reconcile(ctx, admission));
  }

  /** Resolves when the background reconciliations of finished calls are done. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
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

  /** The TPM entry and the budget counter, settled in one cache-store operation. */
  async #reconcile(ctx: CallContext, admission: Admission): Promise<void> {
    const actual = admission.reservedTokens === null ? null : actualTokens(ctx);
    const tokens =
      actual !== null && actual !== admission.reservedTokens
        ? { key: LIMIT_KEYS.tpm(admission.keyId), cost: actual }
        : null;
    const deltaCents = admission.reservedCents === null ? 0 : ctx.costCents - admission.reservedCents;
    const budget = deltaCents !== 0 ? { key: LIMIT_KEYS.budget(admission.keyId), deltaCents } : null;
    if (tokens === null && budget === null) return;
    try {
      await this.#deps.cache.settleCall({ id: ctx.requestId, windowMs: RATE_WINDOW_MS, tokens, budget });
    } catch (error) {
      this.#deps.onSettleError(error, ctx);
    }
  }

  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
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
