import { type CacheConnectionErrorEvent, DIAGNOSTICS } from '../diagnostics/diagnostics-channels.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { EventCounter } from './event-counter.ts';

/**
 * While Redis stays unreachable its client reports an error at every reconnect attempt; one line per
 * connection per this interval says the outage goes on without flooding the log.
 */
export const CONNECTION_ERROR_LOG_INTERVAL_MS = 30_000;

export interface DiagnosticsSinks {
  logger: Logger;
  /** Counts `switchyard:router:cooldown` (metric `switchyard.router.cooldowns`). */
  cooldowns: EventCounter;
  /** Counts `switchyard:budget:bound-exceeded` (metric `switchyard.budget.bound_exceeded`). */
  boundExceeded?: EventCounter;
  /** The clock of the connection-error throttle. */
  now?: () => number;
}

/**
 * The one subscriber to the gateway's diagnostics channels (diagnostics-channels.ts): turns each
 * event into its log line or metric. Returns the unsubscribe, for shutdown.
 */
export function subscribeDiagnostics(sinks: DiagnosticsSinks): () => void {
  const { logger, cooldowns } = sinks;
  const stops = [
    DIAGNOSTICS.cacheConnectionError.subscribe(connectionErrorLog(logger, sinks.now ?? Date.now)),
    // Every time: each one is a lost invalidation.
    DIAGNOSTICS.cacheSubscriberError.subscribe((event) =>
      logger.error(
        { store: event.store, channel: event.channel, err: describe(event.error) },
        'cache store pub/sub handler failed; the message was dropped',
      ),
    ),
    DIAGNOSTICS.extensionTripped.subscribe((event) =>
      logger.warn(
        event,
        event.critical
          ? 'extension breaker tripped: calls it applies to answer 503 extension_disabled until it is reset'
          : 'extension breaker tripped: the extension is skipped until it is reset',
      ),
    ),
    DIAGNOSTICS.routerCooldown.subscribe((event) =>
      cooldowns.add(event.deploymentId, event.publicModel, event.reason),
    ),
    DIAGNOSTICS.spendFlushError.subscribe((event) =>
      logger.warn(
        { err: event.error, keys: event.pendingKeys },
        'spend flush failed; keeping the deltas and retrying',
      ),
    ),
    DIAGNOSTICS.spendFlushRecovered.subscribe(() => logger.info('spend flush recovered')),
    // The operator's record of what to add to spend_cents by hand.
    DIAGNOSTICS.spendNotWritten.subscribe((event) =>
      logger.error({ deltas: event.deltas }, 'spend could not be written to the database before shutdown'),
    ),
    DIAGNOSTICS.leaseRenewError.subscribe((event) =>
      logger.warn(
        { err: event.error, keyId: event.keyId },
        'budget reservations not renewed; they lapse unless a renewal succeeds',
      ),
    ),
    DIAGNOSTICS.settleError.subscribe((event) =>
      logger.warn({ err: event.error, requestIds: event.requestIds }, 'limit reservations not reconciled'),
    ),
    DIAGNOSTICS.usageClamped.subscribe((event) =>
      logger.warn(
        {
          requestId: event.requestId,
          deploymentId: event.deploymentId,
          upstreamModel: event.upstreamModel,
          clamped: event.clamped,
        },
        "upstream usage outside the model's bounds was clamped before billing",
      ),
    ),
    DIAGNOSTICS.budgetBoundExceeded.subscribe((event) => {
      sinks.boundExceeded?.add(event.deploymentId, event.upstreamModel);
      logger.warn(
        event,
        'upstream billed past the worst case the budget reserved: billed in full; the overspend bound is exceeded by the difference',
      );
    }),
    DIAGNOSTICS.unpricedModel.subscribe((event) =>
      logger.warn(
        { provider: event.provider, upstreamModel: event.upstreamModel, deploymentId: event.deploymentId },
        'model has no pricing (no override, not in the catalog): its calls are recorded with zero cost',
      ),
    ),
    // The message alone: pg's error carries the client and its connection parameters.
    DIAGNOSTICS.databaseIdleError.subscribe((event) =>
      logger.warn(
        { reason: event.error.message, code: (event.error as { code?: string }).code },
        'idle database connection failed; dropped',
      ),
    ),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** A warn line per connection, at most one per CONNECTION_ERROR_LOG_INTERVAL_MS. */
function connectionErrorLog(logger: Logger, now: () => number) {
  const lastLoggedAt = new Map<string, number>();
  return (event: CacheConnectionErrorEvent) => {
    const at = now();
    const last = lastLoggedAt.get(event.connection);
    if (last !== undefined && at - last < CONNECTION_ERROR_LOG_INTERVAL_MS) return;
    lastLoggedAt.set(event.connection, at);
    logger.warn(
      { store: event.store, connection: event.connection, err: describe(event.error) },
      'cache store connection failed; reconnecting',
    );
  };
}

/** The error's name, code and message only: a Redis client error carries no credential there. */
function describe(error: unknown): { name?: string; code?: unknown; message: string } {
  if (!(error instanceof Error)) return { message: String(error) };
  return { name: error.name, code: (error as { code?: unknown }).code, message: error.message };
}
