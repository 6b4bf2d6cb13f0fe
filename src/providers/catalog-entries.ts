import type { CatalogEntry } from '../catalog/catalog-entry.ts';
import { ModelCatalog } from '../catalog/model-catalog.ts';
import { getProviderAdapter } from './registry.ts';

/** The model catalog, pricing each provider's models by its adapter's price lookups. */
const catalog = new ModelCatalog({
  priceLookupsOf: (provider) => getProviderAdapter(provider)?.priceLookups,
});

/** The catalog entry of a provider's upstream model, without deployment overrides. */
export function lookupCatalogEntry(provider: string, upstreamModel: string): CatalogEntry {
  return catalog.lookup(provider, upstreamModel);
}
