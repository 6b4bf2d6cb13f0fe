/** Pub/sub channels by which replicas tell each other that configuration changed. */
export const CHANNELS = {
  keysChanged: 'config:keys',
  deploymentsChanged: 'config:deployments',
  routerSettingsChanged: 'config:router-settings',
  routerCooldowns: 'router:cooldowns',
  extensionsChanged: 'config:extensions',
  /** An extension's breaker reset (`POST /admin/extensions/{id}/reset`); the message is its id. */
  extensionsReset: 'extensions:reset',
} as const;
