import type { Usage } from '../providers/types.ts';
import type { TokenLimits } from './cost.ts';

/**
 * Most tokens one count of a call may claim when the catalog knows neither the model's context
 * window nor its output limit: ten million, beyond any model's window, so only garbage is cut.
 */
export const UNKNOWN_MODEL_TOKEN_BOUND = 10_000_000;

const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'cachedInputTokens'] as const;

/** A clamped field: what the upstream reported and what was kept. */
export interface ClampedCount {
  field: string;
  reported: unknown;
  kept: number;
}

/**
 * The most tokens one count may claim on a model: its context window plus its output limit (the
 * window again when the output limit is unknown), since no call can use more.
 */
export function tokenBound(limits: TokenLimits): number {
  if (limits.contextWindow === null) return UNKNOWN_MODEL_TOKEN_BOUND;
  return limits.contextWindow + (limits.maxOutputTokens ?? limits.contextWindow);
}

function bounded(value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return 0;
  return Math.min(value, max);
}

/**
 * An upstream's usage made safe to bill (issue 19: usage is not trusted blindly): token counts
 * that are negative, not finite, or above the model's bound are clamped into [0, bound]; images
 * and audio seconds are kept only when finite and non-negative. Returns the usage to keep and what
 * was changed (empty for an honest upstream, which is then returned as it is).
 */
export function clampUsage(usage: Usage, limits: TokenLimits): { usage: Usage; clamped: ClampedCount[] } {
  const max = tokenBound(limits);
  const clamped: ClampedCount[] = [];
  const kept: Usage = { ...usage };
  for (const field of TOKEN_FIELDS) {
    const reported = usage[field];
    if (reported === undefined && field === 'cachedInputTokens') continue;
    const value = bounded(reported, max);
    if (value !== reported) clamped.push({ field, reported, kept: value });
    kept[field] = value;
  }
  for (const field of ['images', 'audioSeconds'] as const) {
    const reported = usage[field];
    if (reported === undefined) continue;
    const value = bounded(reported, Number.MAX_SAFE_INTEGER);
    if (value !== reported) clamped.push({ field, reported, kept: value });
    kept[field] = value;
  }
  if ((kept.cachedInputTokens ?? 0) > kept.inputTokens) {
    clamped.push({ field: 'cachedInputTokens', reported: kept.cachedInputTokens, kept: kept.inputTokens });
    kept.cachedInputTokens = kept.inputTokens;
  }
  return clamped.length === 0 ? { usage, clamped } : { usage: kept, clamped };
}
