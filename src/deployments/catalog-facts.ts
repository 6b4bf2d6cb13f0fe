import { lookupCatalogEntry } from '../providers/catalog-entries.ts';
import type { CatalogLookup } from './deployment-resolver.ts';

/**
 * What the model catalog says of a deployment's model, for `POST /admin/deployments/resolve`:
 * context window, capabilities, and whether it knows a price (DESIGN.md section 5). The catalog
 * has one entry per model, whatever the operation.
 */
export const catalogFacts: CatalogLookup = (provider, upstreamModel) => {
  const entry = lookupCatalogEntry(provider, upstreamModel);
  return {
    contextWindow: entry.contextWindow,
    capabilities: { ...entry.capabilities },
    hasPrice: entry.pricing !== null,
  };
};
