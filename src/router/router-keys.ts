/**
 * Cache-store keys of the router's shared state (DESIGN.md section 6: cooldowns, in-flight
 * counters and rate windows live in the cache store, so every replica sees them). The deployment
 * id is the `{hash-tag}`: the keys of one deployment share a Redis Cluster slot.
 */
export const ROUTER_KEYS = Object.freeze({
  /** Present (with a TTL) while the deployment is in cooldown; the value is the end, epoch ms. */
  cooldown: (deploymentId: string) => `router:{${deploymentId}}:cooldown`,
  /** Sliding log of recent retryable failures. */
  failures: (deploymentId: string) => `router:{${deploymentId}}:failures`,
  /** Sliding log of the attempts in flight: one entry per attempt, released when it ends. */
  inFlight: (deploymentId: string) => `router:{${deploymentId}}:in-flight`,
  /** EWMA of recent latency (ms, as text). */
  latency: (deploymentId: string) => `router:{${deploymentId}}:latency`,
  /** The deployment's own `rpmLimit` and `tpmLimit` windows (the upstream's limits). */
  rpm: (deploymentId: string) => `router:{${deploymentId}}:rpm`,
  tpm: (deploymentId: string) => `router:{${deploymentId}}:tpm`,
});

/** A sliding log used as a counter: the limit no admission ever reaches. */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;
