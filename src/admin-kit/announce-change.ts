import type { CacheStore } from '../cache/cache-store.ts';
import type { Logger } from '../diagnostics/logger.ts';

/** A committed admin change the other replicas must hear of. */
export interface Change {
  /** The pub/sub channel (`CHANNELS`), and the changed row's id as the message. */
  channel: string;
  id: string;
  /** Log fields naming the row, e.g. `{ deploymentId }`. */
  context: Record<string, unknown>;
  /** Logged when the publish fails: what went unannounced and how the other replicas catch up. */
  failure: string;
}

/**
 * Tells the other replicas about a change. A failed publish is logged, not thrown: the write is
 * committed, and the others catch up on their own (periodic reload, cache expiry).
 */
export async function announceChange(
  deps: { cache: Pick<CacheStore, 'publish'>; logger: Logger },
  change: Change,
): Promise<void> {
  try {
    await deps.cache.publish(change.channel, change.id);
  } catch (error) {
    deps.logger.warn({ err: error, ...change.context }, change.failure);
  }
}
