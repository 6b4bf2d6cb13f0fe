import diagnosticsChannel from 'node:diagnostics_channel';

/**
 * Events of the cache stores, published instead of logged, so the store needs no logger and a
 * subscriber decides what becomes a log line or a metric. Subscribe with `diagnosticsChannel.subscribe(name, fn)`.
 */
export const CACHE_DIAGNOSTICS = Object.freeze({
  /** `{ store, connection, error }`: a Redis connection failed or dropped; the store reconnects by itself. */
  connectionError: 'switchyard:cache:connection-error',
  /** `{ store, channel, error }`: a pub/sub handler threw; the error is contained here. */
  subscriberError: 'switchyard:cache:subscriber-error',
} as const);

export interface CacheConnectionErrorEvent {
  store: 'redis';
  connection: 'commands' | 'subscriber';
  error: unknown;
}

export interface CacheSubscriberErrorEvent {
  store: 'redis' | 'memory';
  channel: string;
  error: unknown;
}

const connectionErrorChannel = diagnosticsChannel.channel(CACHE_DIAGNOSTICS.connectionError);
const subscriberErrorChannel = diagnosticsChannel.channel(CACHE_DIAGNOSTICS.subscriberError);

export function publishConnectionError(event: CacheConnectionErrorEvent): void {
  if (connectionErrorChannel.hasSubscribers) connectionErrorChannel.publish(event);
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
    if (subscriberErrorChannel.hasSubscribers) subscriberErrorChannel.publish({ store, channel, error });
  }
}
