import { calcPrice, type PriceCalculation } from '@pydantic/genai-prices';
import { convertLibraryPrice } from './convert-library-price.ts';
import type { ModelPricing } from './model-pricing.ts';
import type { PriceLookup } from './price-lookup.ts';
import { nextPriceChangeMs } from './price-schedule.ts';

/** What genai-prices knows of one model at one moment. */
export interface LibraryModel {
  pricing: ModelPricing | null;
  contextWindow: number | null;
  /** The price may change at this time (epoch ms); Infinity when fixed. */
  validUntilMs: number;
}

function calculate(query: PriceLookup, timestamp: Date): PriceCalculation | null {
  try {
    return calcPrice({}, query.model, { providerId: query.providerId, timestamp });
  } catch {
    // Malformed library data for one model must not fail a request: treat it as unpriced.
    return null;
  }
}

/** The first of a model's lookups genai-prices knows; null when it knows none. */
export function findLibraryModel(lookups: readonly PriceLookup[], nowMs: number): LibraryModel | null {
  const timestamp = new Date(nowMs);
  for (const query of lookups) {
    const found = calculate(query, timestamp);
    if (found === null) continue;
    return {
      pricing: convertLibraryPrice(found.model_price),
      contextWindow: found.model.context_window ?? null,
      validUntilMs: nextPriceChangeMs(found.model, nowMs),
    };
  }
  return null;
}
