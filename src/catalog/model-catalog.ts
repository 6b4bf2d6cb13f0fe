import type { CatalogEntry, ModelCapabilities } from './catalog-entry.ts';
import { findOverlayRule } from './find-overlay-rule.ts';
import { findLibraryModel } from './library-prices.ts';
import type { PriceLookups } from './price-lookup.ts';

/**
 * Capabilities of a model neither the overlay nor a deployment override describes: all true,
 * so a pre-flight capability check never blocks a model we know nothing about (a new release,
 * a fine-tune, a self-hosted model under a custom name). If the model really lacks the
 * capability, the upstream answers with its own 400, which is what the client would get
 * without a gateway; wrongly blocking would make the model unusable through Switchyard until
 * an operator overrides it. Such entries carry `source.capabilities: 'default'` and a null
 * context window (no context check either).
 */
const UNKNOWN_MODEL_CAPABILITIES: Readonly<ModelCapabilities> = Object.freeze({
  tools: true,
  vision: true,
  reasoning: true,
  structuredOutputs: true,
});

/**
 * Bound of the memo. Entries are keyed by a deployment's provider and upstream model, a set
 * operators configure, so the bound is only a guard against unbounded growth; when it is hit the
 * memo starts over.
 */
const MAX_MEMO_ENTRIES = 4_096;

interface MemoEntry {
  entry: CatalogEntry;
  validUntilMs: number;
}

export interface ModelCatalogOptions {
  /** A provider's price lookups (ProviderAdapter.priceLookups); undefined for an unknown provider, which is unpriced. */
  priceLookupsOf(provider: string): PriceLookups | undefined;
  /** Clock (epoch ms), for prices that change at a date or a time of day. */
  now?: () => number;
}

function buildEntry(
  provider: string,
  model: string,
  lookups: PriceLookups | undefined,
  nowMs: number,
): MemoEntry {
  const library = lookups === undefined ? null : findLibraryModel(lookups(model), nowMs);
  const rule = findOverlayRule(model);
  const pricing = library?.pricing ?? null;
  const entry: CatalogEntry = {
    provider,
    model,
    contextWindow: library?.contextWindow ?? rule?.contextWindow ?? null,
    maxOutputTokens: rule?.maxOutputTokens ?? null,
    capabilities: rule?.capabilities ?? UNKNOWN_MODEL_CAPABILITIES,
    pricing: pricing === null ? null : Object.freeze(pricing),
    source: Object.freeze({
      pricing: pricing === null ? ('none' as const) : ('catalog' as const),
      capabilities: rule === undefined ? ('default' as const) : ('overlay' as const),
    }),
  };
  return { entry: Object.freeze(entry), validUntilMs: library?.validUntilMs ?? Number.POSITIVE_INFINITY };
}

/**
 * The model catalog (DESIGN.md section 1): prices and context windows from genai-prices, the
 * capability overlay, and defaults. Lookups run on the hot path, so each (provider, model) is
 * resolved once and memoised; the entry is frozen and shared by every caller.
 */
export class ModelCatalog {
  #memo = new Map<string, MemoEntry>();
  #now: () => number;
  #priceLookupsOf: ModelCatalogOptions['priceLookupsOf'];

  constructor(options: ModelCatalogOptions) {
    this.#now = options.now ?? Date.now;
    this.#priceLookupsOf = options.priceLookupsOf;
  }

  lookup(provider: string, upstreamModel: string): CatalogEntry {
    const key = `${provider}\n${upstreamModel}`;
    const memoised = this.#memo.get(key);
    if (
      memoised !== undefined &&
      (memoised.validUntilMs === Number.POSITIVE_INFINITY || this.#now() < memoised.validUntilMs)
    ) {
      return memoised.entry;
    }
    const fresh = buildEntry(provider, upstreamModel, this.#priceLookupsOf(provider), this.#now());
    if (this.#memo.size >= MAX_MEMO_ENTRIES) this.#memo.clear();
    this.#memo.set(key, fresh);
    return fresh.entry;
  }
}
