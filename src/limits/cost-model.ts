import type { DeploymentPricing } from '../deployments/deployment.ts';
import type { EndpointBody } from '../pipeline/endpoint.ts';
import type { Operation, Usage } from '../providers/types.ts';

/**
 * What the limits need from the model catalog (src/limits/cost.ts and src/catalog/), narrowed to
 * five functions so admission and settlement can be tested without the catalog data.
 */
export interface CostModel {
  /** Pre-call estimate of the request's input tokens. */
  estimateInputTokens(operation: Operation, body: EndpointBody): number;
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
