import { ConfigError } from '../errors/config-error.ts';
import type { CacheStore } from './cache-store.ts';
import { MemoryCacheStore } from './memory-cache-store.ts';
import { RedisCacheStore } from './redis-cache-store.ts';
import type { RedisClusterNodes } from './redis-cluster-connection.ts';
import { RedisSetupRefusedError } from './redis-connection.ts';

export interface CreateCacheStoreOptions {
  /** Redis for replicas when set; the in-process store of the embedded default otherwise. */
  redisUrl: string | undefined;
  /** A Redis Cluster (REDIS_CLUSTER_NODES), in place of `redisUrl`. */
  redisClusterNodes?: RedisClusterNodes;
  /** Prefix of every Redis key and channel (ignored by the memory store, which is private to the process). */
  keyPrefix: string;
  /** DEPENDENCY_TIMEOUT_MS: a Redis command not answered within it fails (the store's default: 1 s). */
  commandTimeoutMs?: number;
}

/**
 * The cache store the configuration asks for. With Redis it resolves once connected or after
 * about a second, whichever is first: a gateway started during an outage still starts, reports
 * not ready, and the store connects when Redis comes back. Redis that answers but refuses the
 * URL's database index or credentials fails the start with a line naming REDIS_URL: waiting
 * would only serve 503 for good.
 */
export async function createCacheStore(options: CreateCacheStoreOptions): Promise<CacheStore> {
  const cluster = options.redisClusterNodes;
  if (cluster === undefined && (options.redisUrl === undefined || options.redisUrl === '')) {
    return new MemoryCacheStore();
  }
  try {
    return await RedisCacheStore.connect({
      url: options.redisUrl,
      cluster,
      keyPrefix: options.keyPrefix,
      commandTimeoutMs: options.commandTimeoutMs,
    });
  } catch (error) {
    if (!(error instanceof RedisSetupRefusedError)) throw error;
    throw new ConfigError(
      cluster === undefined
        ? `REDIS_URL: ${error.message} (check the database index after host:port and the credentials)`
        : `REDIS_CLUSTER_NODES: ${error.message} (check the credentials)`,
    );
  }
}
