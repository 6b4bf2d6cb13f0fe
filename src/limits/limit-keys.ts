/**
 * Cache-store keys of one virtual key's limits. The key id is the `{hash-tag}`, so the RPM and
 * TPM windows and the budget counter of one key share a Redis Cluster slot (src/cache/redis-keys.ts).
 */
export const LIMIT_KEYS = Object.freeze({
  rpm: (keyId: string) => `rl:{${keyId}}:rpm`,
  tpm: (keyId: string) => `rl:{${keyId}}:tpm`,
  /** Settled spend (cents). Not `:spend`: that counter of earlier releases also held reservations. */
  budget: (keyId: string) => `rl:{${keyId}}:spent`,
  /** The reservations of the calls in flight: a sliding log whose window is the lease. */
  budgetHeld: (keyId: string) => `rl:{${keyId}}:held`,
});

/** RPM and TPM are per minute: sliding windows of 60 s (a sliding log, exact at the boundary). */
export const RATE_WINDOW_MS = 60_000;
