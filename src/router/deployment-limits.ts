import type { CacheStore } from '../cache/cache-store.ts';
import type { Deployment } from '../deployments/deployment.ts';
import { RATE_WINDOW_MS } from '../limits/limit-keys.ts';
import type { Usage } from '../providers/types.ts';
import { ROUTER_KEYS } from './router-keys.ts';

export type LimitDecision = { admitted: true } | { admitted: false; retryAfterMs: number };

const ADMITTED: LimitDecision = Object.freeze({ admitted: true });

/**
 * A deployment's own `rpmLimit` and `tpmLimit` (DESIGN.md section 5: "upstream limits the
 * router respects"), as sliding windows of a minute shared by every replica, like a key's limits.
 * A deployment over either is passed over for the call, as a cooling one is. A request is counted
 * when it is sent; its tokens are reserved at the estimate and corrected to the upstream's usage
 * when the attempt ends. The cache store failing admits: these limits protect the upstream's
 * quota, not the gateway, and the upstream enforces them anyway.
 */
export class DeploymentLimits {
  readonly #cache: CacheStore;

  constructor(cache: CacheStore) {
    this.#cache = cache;
  }

  /** `tokens(limit)`: the call's TPM reservation under that limit, computed only when needed. */
  async admit(
    deployment: Deployment,
    attemptId: string,
    tokens: (limit: number) => number,
  ): Promise<LimitDecision> {
    const { rpmLimit, tpmLimit } = deployment;
    if (rpmLimit === null && tpmLimit === null) return ADMITTED;
    try {
      if (rpmLimit !== null) {
        const requests = await this.#cache.windowAdmit(ROUTER_KEYS.rpm(deployment.id), {
          id: attemptId,
          cost: 1,
          limit: rpmLimit,
          windowMs: RATE_WINDOW_MS,
        });
        if (!requests.admitted) return { admitted: false, retryAfterMs: requests.retryAfterMs };
      }
      if (tpmLimit !== null) {
        const reserved = await this.#cache.windowAdmit(ROUTER_KEYS.tpm(deployment.id), {
          id: attemptId,
          cost: tokens(tpmLimit),
          limit: tpmLimit,
          windowMs: RATE_WINDOW_MS,
        });
        if (!reserved.admitted) {
          if (rpmLimit !== null) await this.#release(ROUTER_KEYS.rpm(deployment.id), attemptId);
          return { admitted: false, retryAfterMs: reserved.retryAfterMs };
        }
      }
      return ADMITTED;
    } catch {
      return ADMITTED;
    }
  }

  /** The attempt ended: its TPM reservation becomes the usage (0 when it failed with none). */
  settle(deployment: Deployment, attemptId: string, usage: Usage | null, failed: boolean): void {
    if (deployment.tpmLimit === null) return;
    const actual = usage === null ? (failed ? 0 : null) : usage.inputTokens + usage.outputTokens;
    if (actual === null) return;
    this.#cache
      .windowAdjust(ROUTER_KEYS.tpm(deployment.id), attemptId, actual, RATE_WINDOW_MS)
      .catch(() => {});
  }

  async #release(key: string, attemptId: string): Promise<void> {
    await this.#cache.windowAdjust(key, attemptId, 0, RATE_WINDOW_MS);
  }
}
