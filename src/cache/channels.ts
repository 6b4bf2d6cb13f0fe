/** Pub/sub channels by which replicas tell each other that configuration changed. */
export const CHANNELS = {
  keysChanged: 'config:keys',
  deploymentsChanged: 'config:deployments',
  routerSettingsChanged: 'config:router-settings',
  routerCooldowns: 'router:cooldowns',
  extensionsChanged: 'config:extensions',
  /** An extension's breaker reset (`POST /admin/extensions/{id}/reset`); the message is its id. */
  extensionsReset: 'extensions:reset',
  /**
   * A budget counter was seeded (lost by the store, or a new period's): every replica holds the
   * reservations of its calls in flight again at once; the message is the reservation log's key.
   */
  budgetRebuilt: 'limits:budget-rebuilt',
} as const;
