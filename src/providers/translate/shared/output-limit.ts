import type { TranslationTarget } from '../../types.ts';

/**
 * A requested output cap within the model's documented output limit. Clients written for one
 * model family ask for that family's limit (Claude Code asks 32,000 of every model); on a
 * translated route the upstream is another family, which would refuse the whole call for a cap
 * above its own. The model stops at its limit either way, and the answer's usage says what it
 * wrote.
 */
export function withinOutputLimit(requested: number, target: TranslationTarget | undefined): number {
  const limit = target?.maxOutputTokens;
  return limit != null && limit > 0 && requested > limit ? limit : requested;
}
