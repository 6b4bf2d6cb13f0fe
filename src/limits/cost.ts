import type { ModelPricing } from '../catalog/model-pricing.ts';
import type { Usage } from '../providers/types.ts';
import { exactCents } from './exact-cents.ts';

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
