import {
  type CacheSubscriberErrorEvent,
  type CacheSubscriptionEvent,
  DIAGNOSTICS,
} from '../diagnostics/diagnostics-channels.ts';

/** A Redis client's error event: published, not logged, so the store needs no logger. */
export function publishConnectionError(connection: 'commands' | 'subscriber', error: unknown): void {
  const channel = DIAGNOSTICS.cacheConnectionError;
  if (channel.hasSubscribers) channel.publish({ store: 'redis', connection, error });
}

/** A subscription waits for Redis, or is live again after waiting. */
export function publishSubscriptionState(event: CacheSubscriptionEvent): void {
  const channel = DIAGNOSTICS.cacheSubscription;
  if (channel.hasSubscribers) channel.publish(event);
}

/** Runs a subscriber's handler so that a throw is reported instead of crashing the process. */
export function deliverToSubscriber(
  store: CacheSubscriberErrorEvent['store'],
  channel: string,
  handler: (message: string) => void,
  message: string,
): void {
  try {
    handler(message);
  } catch (error) {
    const failed = DIAGNOSTICS.cacheSubscriberError;
    if (failed.hasSubscribers) failed.publish({ store, channel, error });
  }
}
