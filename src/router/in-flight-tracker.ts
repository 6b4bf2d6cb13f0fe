import type { CacheStore } from '../cache/cache-store.ts';
import { ROUTER_KEYS, UNLIMITED } from './router-keys.ts';

/**
 * Kept past an attempt's total timeout before its entry fades: an attempt cannot outlive its
 * total timeout, so an entry older than that belongs to a replica that died mid-attempt.
 */
export const IN_FLIGHT_SLACK_MS = 60_000;

/**
 * Attempts in flight per deployment, shared by every replica, kept only while the `least-busy`
 * strategy is in force (TrackedAttempt): after a switch to it, attempts already running are not
 * counted, and the counts are right once they end. Each attempt is one entry of a sliding log in
 * the cache store, added when it starts and released when it ends (a stream: when its last event
 * is written or the client leaves). A plain counter (INCRBY +1/-1) would need a TTL to forget a
 * crashed replica, and that TTL would expire a busy counter mid-flight, leaving later decrements
 * to drive it negative; entries of a log age out one by one, after `lifetimeMs`, so only a dead
 * replica's attempts fade.
 *
 * Bookkeeping never fails a call: writes are not awaited and a failed read counts as idle.
 */
export class InFlightTracker {
  readonly #cache: CacheStore;

  constructor(cache: CacheStore) {
    this.#cache = cache;
  }

  /** `lifetimeMs`: the longest an attempt can last (its total timeout) plus IN_FLIGHT_SLACK_MS. */
  start(deploymentId: string, attemptId: string, lifetimeMs: number): void {
    this.#cache
      .windowAdmit(ROUTER_KEYS.inFlight(deploymentId), {
        id: attemptId,
        cost: 1,
        limit: UNLIMITED,
        windowMs: lifetimeMs,
      })
      .catch(() => {});
  }

  end(deploymentId: string, attemptId: string, lifetimeMs: number): void {
    this.#cache.windowAdjust(ROUTER_KEYS.inFlight(deploymentId), attemptId, 0, lifetimeMs).catch(() => {});
  }

  async count(deploymentId: string, lifetimeMs: number): Promise<number> {
    try {
      return (await this.#cache.windowState(ROUTER_KEYS.inFlight(deploymentId), UNLIMITED, lifetimeMs)).used;
    } catch {
      return 0;
    }
  }
}

export function inFlightLifetimeMs(totalMs: number): number {
  return totalMs + IN_FLIGHT_SLACK_MS;
}
