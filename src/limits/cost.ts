import type { ModelPricing } from '../catalog/model-pricing.ts';
import type { Deployment, DeploymentPricing } from '../deployments/deployment.ts';
import { estimateInputTokensPaced, requestedOutputTokens } from '../formats/estimate-tokens.ts';
import { OPERATION_SPECS } from '../formats/operation-spec.ts';
import type { EndpointBody } from '../pipeline/endpoint.ts';
import { lookupCatalogEntry } from '../providers/catalog-entries.ts';
import type { Operation, Usage } from '../providers/types.ts';
import { exactCents } from './exact-cents.ts';
import { type InputBoundQuery, inputTokenBound } from './input-bound.ts';

/**
 * What a call costs: the price of a deployment, the cost of a usage, and the worst case a budget
 * reserves before the call is made. The catalog is reached through CostModel, so admission and
 * settlement can be tested without the catalog data.
 */

/** What the limits need from the model catalog (src/catalog/), narrowed to six functions. */
export interface CostModel {
  /**
   * Pre-call estimate of the request's input tokens; a promise when a large body is counted
   * between turns of the event loop (formats/estimate-tokens.ts, estimateInputTokensPaced).
   */
  estimateInputTokens(operation: Operation, body: EndpointBody): number | Promise<number>;
  /** The most input tokens a deployment's provider may bill for the call (input-bound.ts). */
  inputTokenBound(query: InputBoundQuery): number;
  /** The output bound the body asks for (`max_tokens` and its kin); null when it sets none. */
  requestedOutputTokens(operation: Operation, body: EndpointBody): number | null;
  /** The catalog's price of a provider's model; null when the catalog has none. */
  catalogPricing(provider: string, upstreamModel: string): DeploymentPricing | null;
  /** The catalog's context window and maximum output of a provider's model; null where unknown. */
  tokenLimits(provider: string, upstreamModel: string): TokenLimits;
  computeCostCents(usage: Usage, pricing: DeploymentPricing): number;
}

export interface TokenLimits {
  contextWindow: number | null;
  maxOutputTokens: number | null;
}

const TOKENS_PER_MTOK = 1_000_000;
const SECONDS_PER_MINUTE = 60;

/** A usage count as a non-negative finite number: an upstream's missing or garbled count bills nothing. */
function count(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The cost of one call in fractional US cents, exact to the nano-cent (exact-cents.ts: whole
 * cents would drift a key's spend, and float noise must not reach the records). `usage.inputTokens` includes the
 * cached tokens, as every provider's usage reports them once normalised; the cached ones are
 * billed at the cached price, or at the input price when the model has none. Zero when the model
 * has no known price.
 */
export function computeCostCents(usage: Usage, pricing: ModelPricing | null): number {
  if (pricing === null) return 0;
  const inputTokens = count(usage.inputTokens);
  const cachedTokens = Math.min(count(usage.cachedInputTokens), inputTokens);
  const cachedPrice = pricing.cachedInputCentsPerMTok ?? pricing.inputCentsPerMTok;
  const tokenCents =
    ((inputTokens - cachedTokens) * pricing.inputCentsPerMTok +
      cachedTokens * cachedPrice +
      count(usage.outputTokens) * pricing.outputCentsPerMTok) /
    TOKENS_PER_MTOK;
  const imageCents = count(usage.images) * (pricing.imageCents ?? 0);
  const audioCents = (count(usage.audioSeconds) / SECONDS_PER_MINUTE) * (pricing.audioCentsPerMinute ?? 0);
  return exactCents(tokenCents + imageCents + audioCents);
}

/**
 * The limits' view of the model catalog: token estimates, catalog prices (the catalog memoises
 * each entry and follows scheduled price changes), token limits and the cost function.
 */
export const catalogCostModel: CostModel = Object.freeze({
  estimateInputTokens: estimateInputTokensPaced,
  inputTokenBound,
  requestedOutputTokens,
  catalogPricing: (provider: string, upstreamModel: string) =>
    lookupCatalogEntry(provider, upstreamModel).pricing,
  tokenLimits: (provider: string, upstreamModel: string) => {
    const { contextWindow, maxOutputTokens } = lookupCatalogEntry(provider, upstreamModel);
    return { contextWindow, maxOutputTokens };
  },
  computeCostCents,
});

/** Where a deployment's price comes from (DESIGN.md section 5: price source). */
export type PriceSource = 'override' | 'catalog' | 'none';

export interface ResolvedPricing {
  pricing: DeploymentPricing | null;
  source: PriceSource;
}

/**
 * A deployment's price: its `pricing` override, else the catalog entry of its provider and
 * upstream model, else none (SPEC.md: models without pricing are logged with zero cost). Not
 * remembered here: the catalog memoises its entries and follows scheduled price changes.
 */
export function pricingOf(model: CostModel, deployment: Deployment): ResolvedPricing {
  if (deployment.pricing !== null) return { pricing: deployment.pricing, source: 'override' };
  const catalog = model.catalogPricing(deployment.provider, deployment.upstreamModel);
  return catalog === null ? { pricing: null, source: 'none' } : { pricing: catalog, source: 'catalog' };
}

/**
 * Output tokens assumed when neither the body, nor the catalog's maximum output, nor its context
 * window bounds a model's answer (a model the catalog does not know): docs/configuration.md,
 * Budgets. Such a model's answer can pass it, and the overspend bound with it.
 */
export const UNKNOWN_MODEL_OUTPUT_TOKENS = 32_768;

/**
 * The most output a call can produce on a model: the body's bound, else the catalog's maximum
 * output, else what the context window leaves after the input, else UNKNOWN_MODEL_OUTPUT_TOKENS.
 */
export function outputBound(requested: number | null, limits: TokenLimits, inputTokens: number): number {
  if (requested !== null) return Math.ceil(requested);
  if (limits.maxOutputTokens !== null) return limits.maxOutputTokens;
  if (limits.contextWindow !== null) return Math.max(0, limits.contextWindow - inputTokens);
  return UNKNOWN_MODEL_OUTPUT_TOKENS;
}

export interface WorstCaseInput {
  operation: Operation;
  body: EndpointBody;
  inputTokens: number;
}

/**
 * A call's worst-case cost in cents (DESIGN.md section 5, Budget admission): the input the
 * deployment's provider may bill (the estimate with its family's margin and framing, each part
 * bounded: input-bound.ts) plus its output bound, at that deployment's price, the highest
 * of the pool (the router may pick any of them). Images are counted from `n`. Unpriced
 * deployments cost 0.
 */
export function worstCaseCents(pool: readonly Deployment[], call: WorstCaseInput, model: CostModel): number {
  const text = OPERATION_SPECS[call.operation].textOutput;
  const requested = text ? model.requestedOutputTokens(call.operation, call.body) : null;
  let highest = 0;
  for (const deployment of costClasses(pool)) {
    const { pricing } = pricingOf(model, deployment);
    if (pricing === null) continue;
    const limits = model.tokenLimits(deployment.provider, deployment.upstreamModel);
    const inputTokens = model.inputTokenBound({
      operation: call.operation,
      body: call.body,
      estimate: call.inputTokens,
      provider: deployment.provider,
      upstreamModel: deployment.upstreamModel,
      contextWindow: limits.contextWindow,
    });
    const usage: Usage = { inputTokens, outputTokens: 0 };
    if (text) usage.outputTokens = outputBound(requested, limits, call.inputTokens);
    // Image operations are priced per image; `n` is how many the body asks for (OpenAI's default 1).
    if (call.operation.startsWith('images.')) {
      usage.images = typeof call.body.n === 'number' && call.body.n > 0 ? call.body.n : 1;
    }
    highest = Math.max(highest, model.computeCostCents(usage, pricing));
  }
  return highest;
}

const classesOfPool = new WeakMap<readonly Deployment[], readonly Deployment[]>();

/**
 * One deployment of each group of the pool that a call costs the same on: same provider, same
 * upstream model (so the same catalog price, token limits and input bound) and same price
 * override. A pool of thousands of copies of one deployment is priced once per call, not once per
 * member; the groups are kept with the pool, which the directory builds once per load.
 */
function costClasses(pool: readonly Deployment[]): readonly Deployment[] {
  let classes = classesOfPool.get(pool);
  if (classes === undefined) {
    const byPrice = new Map<string, Deployment>();
    for (const deployment of pool) {
      const override = deployment.pricing === null ? '' : JSON.stringify(deployment.pricing);
      const key = `${deployment.provider}\u0000${deployment.upstreamModel}\u0000${override}`;
      if (!byPrice.has(key)) byPrice.set(key, deployment);
    }
    classes = [...byPrice.values()];
    classesOfPool.set(pool, classes);
  }
  return classes;
}
