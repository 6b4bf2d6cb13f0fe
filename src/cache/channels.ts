/** Pub/sub channels by which replicas tell each other that configuration changed. */
export const CHANNELS = {
  keysChanged: 'config:keys',
  deploymentsChanged: 'config:deployments',
  routerSettingsChanged: 'config:router-settings',
  routerCooldowns: 'router:cooldowns',
} as const;
