/**
 * Decimal places of a cent kept in costs and spend: a nano-cent, far below any price's step
 * (the cheapest catalog prices cost about 1e-6 cents a token), while every amount up to ten
 * thousand dollars keeps at most 15 significant digits, which a double holds exactly.
 */
const CENT_DECIMALS = 9;
const SCALE = 10 ** CENT_DECIMALS;

/**
 * An amount of cents as the exact decimal stored (numeric columns, the cache store): rounded to
 * the nano-cent, so float noise such as 0.30000000000000004 never reaches a record or a sum, and
 * anything not a finite non-negative number (NaN, Infinity, a negative) counts as 0.
 */
export function exactCents(cents: number): number {
  if (!Number.isFinite(cents) || cents <= 0) return 0;
  return Math.round(cents * SCALE) / SCALE;
}
