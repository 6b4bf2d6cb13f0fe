import type { CatalogEntry, CatalogOverrides, ModelCapabilities } from './catalog-entry.ts';

function hasCapabilityOverride(capabilities: Partial<ModelCapabilities> | undefined): boolean {
  if (capabilities === undefined) return false;
  return (
    capabilities.tools !== undefined ||
    capabilities.vision !== undefined ||
    capabilities.reasoning !== undefined ||
    capabilities.structuredOutputs !== undefined
  );
}

/**
 * A deployment's catalog entry: the catalog's (`base`), with the deployment's overrides on top
 * (DESIGN.md section 5: `pricing`, reported as price source `override`). An absent or null
 * override keeps the catalog's value, matching a nullable column that was never set. Without
 * overrides this returns the shared, memoised entry; with overrides a new frozen one, so build it
 * when the deployment is loaded, not per request.
 */
export function resolveCatalogEntry(base: CatalogEntry, overrides: CatalogOverrides = {}): CatalogEntry {
  const pricing = overrides.pricing ?? null;
  const contextWindow = overrides.contextWindow ?? null;
  const capabilitiesOverridden = hasCapabilityOverride(overrides.capabilities);
  if (pricing === null && contextWindow === null && !capabilitiesOverridden) return base;

  const capabilities: ModelCapabilities = { ...base.capabilities };
  if (capabilitiesOverridden) {
    for (const name of ['tools', 'vision', 'reasoning', 'structuredOutputs'] as const) {
      const value = overrides.capabilities?.[name];
      if (value !== undefined) capabilities[name] = value;
    }
  }
  return Object.freeze({
    ...base,
    contextWindow: contextWindow ?? base.contextWindow,
    capabilities: Object.freeze(capabilities),
    pricing: pricing === null ? base.pricing : Object.freeze({ ...pricing }),
    source: Object.freeze({
      pricing: pricing === null ? base.source.pricing : ('override' as const),
      capabilities: capabilitiesOverridden ? ('override' as const) : base.source.capabilities,
    }),
  });
}
