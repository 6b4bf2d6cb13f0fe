import { z } from 'zod';

/**
 * A model's prices in US cents: per million tokens for text, per image, per minute of audio.
 * The same unit and shape as a deployment's `pricing` override (DESIGN.md section 5), so the
 * admin API validates the override with `modelPricingSchema` and the cost code takes either.
 */
export interface ModelPricing {
  inputCentsPerMTok: number;
  outputCentsPerMTok: number;
  /** Price of cache-read input tokens; absent means they cost the input price. */
  cachedInputCentsPerMTok?: number;
  imageCents?: number;
  audioCentsPerMinute?: number;
}

/**
 * Highest price accepted in an override: a million dollars per million tokens, per image or per
 * audio minute, a hundred times any real price. It keeps every cost a finite number that a
 * numeric column and a double hold exactly (src/limits/exact-cents.ts); a larger one is a typo.
 */
export const MAX_PRICE_CENTS = 100_000_000;

const cents = z
  .number()
  .finite()
  .nonnegative()
  .max(MAX_PRICE_CENTS, `a price is at most ${MAX_PRICE_CENTS} cents (a million dollars)`);

/** Validates a deployment's pricing override; unknown fields are rejected so a typo is a 400, not a free model. */
export const modelPricingSchema = z.strictObject({
  inputCentsPerMTok: cents,
  outputCentsPerMTok: cents,
  cachedInputCentsPerMTok: cents.optional(),
  imageCents: cents.optional(),
  audioCentsPerMinute: cents.optional(),
}) satisfies z.ZodType<ModelPricing>;
