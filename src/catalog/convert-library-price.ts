import type { ModelPrice } from '@pydantic/genai-prices';
import type { ModelPricing } from './model-pricing.ts';

/**
 * genai-prices gives US dollars, with the unit in the key's suffix (its prices/units.yml):
 * `_mtok` per million tokens, `_hours` per hour. A value is a number or tiered
 * `{ base, tiers: [{ start, price }] }`, where a tier applies once the prompt passes `start`
 * tokens. We take `base`, the first tier's price: the common case, and what the catalog can
 * state without knowing the prompt.
 */
function firstTierUsd(value: ModelPrice[string]): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && typeof value.base === 'number') return value.base;
  return undefined;
}

/** Dollars to cents, rounded to 1e-9 cent so 0.15 $/MTok is 15 cents and not 15.000000000000002. */
function usdToCents(usd: number): number {
  return Math.round(usd * 100 * 1e9) / 1e9;
}

/**
 * Converts the library's price for the moment of the lookup into our cents unit. Returns null
 * when none of the units we bill (text tokens, cache reads, audio duration) is priced, e.g. a
 * model billed per page or per request only. The library has no per-image price; imageCents
 * comes only from a deployment override.
 */
export function convertLibraryPrice(price: ModelPrice): ModelPricing | null {
  const input = firstTierUsd(price.input_mtok);
  const output = firstTierUsd(price.output_mtok);
  const cachedInput = firstTierUsd(price.cache_read_mtok);
  const audioPerHour = firstTierUsd(price.audio_hours) ?? firstTierUsd(price.input_audio_hours);
  if (
    input === undefined &&
    output === undefined &&
    cachedInput === undefined &&
    audioPerHour === undefined
  ) {
    return null;
  }
  const pricing: ModelPricing = {
    inputCentsPerMTok: usdToCents(input ?? 0),
    outputCentsPerMTok: usdToCents(output ?? 0),
  };
  if (cachedInput !== undefined) pricing.cachedInputCentsPerMTok = usdToCents(cachedInput);
  if (audioPerHour !== undefined) pricing.audioCentsPerMinute = usdToCents(audioPerHour / 60);
  return pricing;
}
