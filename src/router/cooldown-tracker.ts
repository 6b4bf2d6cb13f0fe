import type { CacheStore } from '../cache/cache-store.ts';
import { CHANNELS } from '../cache/channels.ts';
import { DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import type { ErrorClass } from '../errors/error-classes.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import { CooldownMirror, formatAnnouncement } from './cooldown-mirror.ts';
import { ROUTER_KEYS, UNLIMITED } from './router-keys.ts';
import type { RouterSettings } from './router-settings-schema.ts';

/**
 * Failure classes that count towards a deployment's cooldown (SPEC.md, States and transitions:
 * "repeated recent upstream failures"): rate limits, 5xx and the upstream refusing the
 * deployment's own credentials, timeouts and connection errors. A client's own bad request,
 * context-window and content-policy refusals say nothing about the deployment's health; a client
 * that went away never reaches here.
 */
export const COOLDOWN_CLASSES: ReadonlySet<ErrorClass> = new Set<ErrorClass>([
  'rate_limit',
  'server',
  'timeout',
  'unavailable',
]);

export function countsTowardCooldown(error: GatewayError): boolean {
  return COOLDOWN_CLASSES.has(error.errorClass);
}

export type CooldownSettings = RouterSettings['cooldown'];

export interface CooldownTrackerOptions {
  /**
   * One clock for tests. By default the stored end of a cooldown is epoch ms (Date.now) and the
   * in-process mirror runs on the monotonic clock (performance.now), which no clock step moves.
   */
  now?(): number;
}

/**
 * Cooldown state in the cache store, so every replica skips a deployment cooled by any other
 * (DESIGN.md section 6). A failure joins the deployment's sliding log of `windowMs`; when the log
 * holds `failureThreshold` failures, a cooldown key with a TTL of `durationMs` appears and the
 * deployment leaves the pool until it expires. The log is not cleared by a cooldown: a deployment
 * whose failures are still within the window when its cooldown ends goes back in at its next
 * failure (a half-open breaker), and one that succeeds stays.
 *
 * Only failures pay round trips. Picking reads this replica's CooldownMirror, which the replica
 * that starts a cooldown updates by announcing it (CHANNELS.routerCooldowns) and which reads the
 * cooldown key at a deployment's first pick and every few seconds after (`sync`).
 */
export class CooldownTracker {
  readonly #cache: CacheStore;
  readonly #epochNow: () => number;
  readonly #mirror: CooldownMirror;

  constructor(cache: CacheStore, options: CooldownTrackerOptions = {}) {
    this.#cache = cache;
    this.#epochNow = options.now ?? Date.now;
    this.#mirror = new CooldownMirror(cache, options.now ?? (() => performance.now()));
  }

  /** Listens to the cooldowns other replicas start; `close` stops. */
  watch(): Promise<void> {
    return this.#mirror.watch();
  }

  close(): Promise<void> {
    return this.#mirror.close();
  }

  /** What to wait for before `remainingMs` of the deployment may be trusted; null: nothing. */
  sync(deploymentId: string): Promise<void> | null {
    return this.#mirror.sync(deploymentId);
  }

  /** Milliseconds until the deployment is back in its pool; 0 when it is in the pool. No round trip. */
  remainingMs(deploymentId: string): number {
    return this.#mirror.remainingMs(deploymentId);
  }

  /**
   * Counts a failure of the deployment (`failureId` unique per attempt); answers true when it put
   * the deployment in cooldown, which it then announces to every replica before answering, so
   * that none routes to it once the failed call has been answered. Failures that do not count
   * (countsTowardCooldown) are ignored.
   */
  async recordFailure(
    deployment: { readonly id: string; readonly publicModel: string; readonly provider: string },
    failureId: string,
    error: GatewayError,
    settings: CooldownSettings,
  ): Promise<boolean> {
    if (!countsTowardCooldown(error)) return false;
    const deploymentId = deployment.id;
    const window = await this.#cache.windowAdmit(ROUTER_KEYS.failures(deploymentId), {
      id: failureId,
      cost: 1,
      limit: UNLIMITED,
      windowMs: settings.windowMs,
    });
    if (window.used < settings.failureThreshold || settings.durationMs <= 0) return false;
    const untilMs = this.#epochNow() + settings.durationMs;
    const started = await this.#cache.setIfAbsent(
      ROUTER_KEYS.cooldown(deploymentId),
      String(untilMs),
      settings.durationMs,
    );
    if (!started) {
      // Already cooling, started by another replica whose announcement may still be on its way.
      await this.#mirror.reconcile(deploymentId);
      return false;
    }
    this.#mirror.cool(deploymentId, settings.durationMs);
    // Published once per cooldown, by the replica that started it (the metric counts it there).
    if (DIAGNOSTICS.routerCooldown.hasSubscribers) {
      DIAGNOSTICS.routerCooldown.publish({
        deploymentId,
        publicModel: deployment.publicModel,
        provider: deployment.provider,
        reason: error.errorClass,
        durationMs: settings.durationMs,
        untilMs,
      });
    }
    await this.#announce(deploymentId, settings.durationMs);
    return true;
  }

  async #announce(deploymentId: string, remainingMs: number): Promise<void> {
    try {
      await this.#cache.publish(CHANNELS.routerCooldowns, formatAnnouncement({ deploymentId, remainingMs }));
    } catch {
      // The cooldown key is written: the other replicas read it within COOLDOWN_RESYNC_MS.
    }
  }
}
