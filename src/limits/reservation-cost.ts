import type { Deployment } from '../deployments/deployment.ts';
import type { Usage } from '../providers/types.ts';
import type { CostModel } from './cost-model.ts';
import { pricingOf } from './deployment-pricing.ts';

/**
 * The cents a call reserves on its key's budget: its estimated usage priced at the highest price
 * in the pool, since the router may pick any deployment of it. Unpriced deployments cost 0.
 */
export function reservationCostCents(
  pool: readonly Deployment[],
  usage: Usage,
  deps: { model: CostModel },
): number {
  let highest = 0;
  for (const deployment of pool) {
    const { pricing } = pricingOf(deps.model, deployment);
    if (pricing !== null) highest = Math.max(highest, deps.model.computeCostCents(usage, pricing));
  }
  return highest;
}
