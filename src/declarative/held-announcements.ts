import type { CacheStore } from '../cache/cache-store.ts';
import type { Logger } from '../diagnostics/logger.ts';

/**
 * Change announcements held until apply's transaction commits: a replica told earlier would
 * reload before the change is visible and keep the old state until its periodic reload. Repeats
 * of one channel and message are sent once.
 */
export class HeldAnnouncements {
  readonly #held = new Map<string, { channel: string; message: string }>();

  publish(channel: string, message: string): Promise<void> {
    this.#held.set(`${channel}\n${message}`, { channel, message });
    return Promise.resolve();
  }

  /** Sends what is held; a failed publish is logged, as the admin API does (replicas catch up on their own). */
  async release(cache: Pick<CacheStore, 'publish'>, logger: Logger): Promise<void> {
    for (const { channel, message } of this.#held.values()) {
      try {
        await cache.publish(channel, message);
      } catch (error) {
        logger.warn(
          { err: error, channel },
          'could not announce an applied change; replicas pick it up at their periodic reload',
        );
      }
    }
    this.#held.clear();
  }
}
