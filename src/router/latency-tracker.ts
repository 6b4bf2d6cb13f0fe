import type { CacheStore } from '../cache/cache-store.ts';
import { ROUTER_KEYS } from './router-keys.ts';

/**
 * Weight of the newest sample in the moving average: about the last five calls matter, so a
 * deployment that slows down loses its place within a few calls, while one slow answer does not.
 */
export const LATENCY_EWMA_ALPHA = 0.3;

/**
 * A deployment's latency is forgotten ten minutes after its last sample: `lowest-latency` then
 * tries it again (an unmeasured deployment goes first), so a deployment that was slow once is
 * not starved for ever.
 */
export const LATENCY_TTL_MS = 600_000;

/** The exponentially weighted moving average after one more sample. */
export function nextLatencyEwma(
  previousMs: number | null,
  sampleMs: number,
  alpha: number = LATENCY_EWMA_ALPHA,
): number {
  if (previousMs === null) return sampleMs;
  return previousMs + alpha * (sampleMs - previousMs);
}

/**
 * Recent latency per deployment in the cache store, so every replica ranks deployments alike
 * (the `lowest-latency` strategy). Samples are taken only while that strategy is in force
 * (TrackedAttempt), so a switch to it starts from the samples younger than LATENCY_TTL_MS,
 * usually none: an unmeasured deployment is tried first, which measures it. A sample is the whole
 * attempt for a JSON answer and the time to the first byte for a stream, whose length depends on
 * the answer, not on the deployment. Two replicas updating at once may lose one sample, which a
 * moving average tolerates; bookkeeping never fails a call.
 */
export class LatencyTracker {
  readonly #cache: CacheStore;

  constructor(cache: CacheStore) {
    this.#cache = cache;
  }

  record(deploymentId: string, sampleMs: number): void {
    this.#update(deploymentId, sampleMs).catch(() => {});
  }

  async latencyMs(deploymentId: string): Promise<number | null> {
    try {
      return parseLatency(await this.#cache.get(ROUTER_KEYS.latency(deploymentId)));
    } catch {
      return null;
    }
  }

  async #update(deploymentId: string, sampleMs: number): Promise<void> {
    const key = ROUTER_KEYS.latency(deploymentId);
    const previous = parseLatency(await this.#cache.get(key));
    const next = nextLatencyEwma(previous, Math.max(0, sampleMs));
    await this.#cache.set(key, String(Math.round(next * 10) / 10), LATENCY_TTL_MS);
  }
}

function parseLatency(value: string | null): number | null {
  if (value === null) return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : null;
}
