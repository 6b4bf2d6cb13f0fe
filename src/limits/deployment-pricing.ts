import type { Deployment, DeploymentPricing } from '../deployments/deployment.ts';
import type { CostModel } from './cost-model.ts';

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
