import diagnosticsChannel from 'node:diagnostics_channel';
import {
  CACHE_DIAGNOSTICS,
  type CacheConnectionErrorEvent,
  type CacheSubscriberErrorEvent,
} from '../cache/cache-diagnostics.ts';
import type { Logger } from './logger.ts';

/**
 * While Redis stays unreachable its client reports an error at every reconnect attempt; one line per
 * connection per this interval says the outage goes on without flooding the log.
 */
export const CONNECTION_ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * Turns the cache stores' diagnostics events into log lines: a dropped or refused Redis connection
 * (warn, throttled per connection) and a pub/sub handler that threw (error, every time: each is a
 * lost invalidation). Returns the unsubscribe function for shutdown.
 */
export function logCacheDiagnostics(logger: Logger, now: () => number = Date.now): () => void {
  const lastLoggedAt = new Map<string, number>();
  const onConnectionError = (message: unknown) => {
    const event = message as CacheConnectionErrorEvent;
    const at = now();
    const last = lastLoggedAt.get(event.connection);
    if (last !== undefined && at - last < CONNECTION_ERROR_LOG_INTERVAL_MS) return;
    lastLoggedAt.set(event.connection, at);
    logger.warn(
      { store: event.store, connection: event.connection, err: describe(event.error) },
      'cache store connection failed; reconnecting',
    );
  };
  const onSubscriberError = (message: unknown) => {
    const event = message as CacheSubscriberErrorEvent;
    logger.error(
      { store: event.store, channel: event.channel, err: describe(event.error) },
      'cache store pub/sub handler failed; the message was dropped',
    );
  };
  diagnosticsChannel.subscribe(CACHE_DIAGNOSTICS.connectionError, onConnectionError);
  diagnosticsChannel.subscribe(CACHE_DIAGNOSTICS.subscriberError, onSubscriberError);
  return () => {
    diagnosticsChannel.unsubscribe(CACHE_DIAGNOSTICS.connectionError, onConnectionError);
    diagnosticsChannel.unsubscribe(CACHE_DIAGNOSTICS.subscriberError, onSubscriberError);
  };
}

/** The error's name, code and message only: a Redis client error carries no credential there. */
function describe(error: unknown): { name?: string; code?: unknown; message: string } {
  if (!(error instanceof Error)) return { message: String(error) };
  return { name: error.name, code: (error as { code?: unknown }).code, message: error.message };
}
