import { CAPABILITY_OVERLAY, type OverlayRule } from './capability-overlay.ts';
import { normalizeModelName } from './normalize-model-name.ts';

/** The most specific overlay rule for a model id, or undefined when the overlay does not know the family. */
export function findOverlayRule(model: string): OverlayRule | undefined {
  const name = normalizeModelName(model);
  // CAPABILITY_OVERLAY is sorted longest prefix first: the first hit is the most specific.
  return CAPABILITY_OVERLAY.find((rule) => name.startsWith(rule.prefix));
}
