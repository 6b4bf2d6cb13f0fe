import type { CatalogEntry } from '../catalog/catalog-entry.ts';
import { resolveCatalogEntry } from '../catalog/resolve-catalog-entry.ts';
import { lookupCatalogEntry } from '../providers/catalog-entries.ts';
import type { Deployment } from './deployment.ts';

/**
 * Entries per loaded deployment: resolveCatalogEntry builds a new entry when a deployment has
 * overrides, so it is built once per deployment snapshot, not per request. The directory
 * replaces its Deployment objects on every reload, which drops these with them.
 */
const entries = new WeakMap<Deployment, CatalogEntry>();

/** The catalog entry of a deployment's upstream model, with the deployment's overrides on top. */
export function catalogEntryOf(deployment: Deployment): CatalogEntry {
  let entry = entries.get(deployment);
  if (entry === undefined) {
    const base = lookupCatalogEntry(deployment.provider, deployment.upstreamModel);
    entry = resolveCatalogEntry(base, { pricing: deployment.pricing });
    entries.set(deployment, entry);
  }
  return entry;
}
