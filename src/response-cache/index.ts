import type { CacheStore } from '../cache/cache-store.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import { ResponseCache } from './response-cache.ts';

/**
 * The response cache's module: the prefetch before admission, the lookup after the extensions'
 * `beforeUpstream`, the write after their `afterUpstream`. With RESPONSE_CACHE_TTL_MS=0 it has
 * nothing, so the pipeline runs no cache stage at all.
 */
export function createResponseCache(
  config: Pick<Config, 'responseCacheTtlMs' | 'responseCacheMaxEntryBytes'>,
  cache: CacheStore,
  logger: Logger,
): FeatureModule {
  if (config.responseCacheTtlMs === 0) return { name: 'response-cache' };
  const responseCache = new ResponseCache({
    cache,
    ttlMs: config.responseCacheTtlMs,
    maxEntryBytes: config.responseCacheMaxEntryBytes,
    logger,
  });
  return {
    name: 'response-cache',
    call: { 'cache-prefetch': responseCache.prefetch, 'cache-lookup': responseCache.stage },
    answer: { 'cache-store': responseCache.store },
  };
}
