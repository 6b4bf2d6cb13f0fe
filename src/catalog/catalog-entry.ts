import type { ModelPricing } from './model-pricing.ts';

/** What a model can take, as SPEC.md's model catalog entry declares it (checked before the upstream call). */
export interface ModelCapabilities {
  tools: boolean;
  vision: boolean;
  reasoning: boolean;
  structuredOutputs: boolean;
}

/** Where the price came from: a deployment override, the genai-prices catalog, or nowhere (cost 0). */
export type PricingSource = 'override' | 'catalog' | 'none';

/**
 * Where the capabilities came from: the project's overlay, the permissive default for a model
 * the overlay does not know, or a deployment override of at least one flag.
 */
export type CapabilitySource = 'override' | 'overlay' | 'default';

export interface CatalogEntry {
  provider: string;
  /** The upstream model id as the deployment names it. */
  model: string;
  /** Tokens of input plus output the model accepts; null when unknown (no context check). */
  contextWindow: number | null;
  /** Most output tokens one call may produce; null when unknown. */
  maxOutputTokens: number | null;
  capabilities: ModelCapabilities;
  /** Null when no price is known: such calls cost 0 cents. */
  pricing: ModelPricing | null;
  source: { pricing: PricingSource; capabilities: CapabilitySource };
}

/** A deployment's overrides of its catalog entry; absent or null fields keep the catalog's value. */
export interface CatalogOverrides {
  pricing?: ModelPricing | null;
  contextWindow?: number | null;
  capabilities?: Partial<ModelCapabilities>;
}
