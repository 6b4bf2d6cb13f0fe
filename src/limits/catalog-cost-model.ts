import { estimateInputTokens, requestedOutputTokens } from '../catalog/estimate-tokens.ts';
import { resolveCatalogEntry } from '../catalog/resolve-catalog-entry.ts';
import { computeCostCents } from './cost.ts';
import type { CostModel } from './cost-model.ts';

/**
 * The limits' view of the model catalog (src/catalog/): token estimates, catalog prices (the
 * catalog memoises each entry and follows scheduled price changes), token limits and the cost
 * function.
 */
export const catalogCostModel: CostModel = Object.freeze({
  estimateInputTokens,
  requestedOutputTokens,
  catalogPricing: (provider: string, upstreamModel: string) =>
    resolveCatalogEntry(provider, upstreamModel).pricing,
  tokenLimits: (provider: string, upstreamModel: string) => {
    const { contextWindow, maxOutputTokens } = resolveCatalogEntry(provider, upstreamModel);
    return { contextWindow, maxOutputTokens };
  },
  computeCostCents,
});
