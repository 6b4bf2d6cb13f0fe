import diagnosticsChannel from 'node:diagnostics_channel';

/**
 * Every event the gateway publishes, on `node:diagnostics_channel` (as undici does): a module
 * publishes what happened and needs no logger, metric or callback for it; telemetry subscribes
 * once (diagnostics-subscriber.ts) and decides what becomes a log line or a metric. Anyone else
 * may subscribe by name too (`diagnosticsChannel.subscribe('switchyard:router:cooldown', fn)`).
 * A channel without subscribers costs a property read: publishers test `hasSubscribers` before
 * they build a message. docs/architecture.md (Observability) lists them.
 */

/** A named channel whose messages are `T`. */
export interface EventChannel<T> {
  readonly name: string;
  /** False while nobody listens: then build no message. */
  readonly hasSubscribers: boolean;
  publish(message: T): void;
  /** Returns the unsubscribe. */
  subscribe(handler: (message: T) => void): () => void;
}

function eventChannel<T>(name: string): EventChannel<T> {
  // Held here for the life of the process: Node.js keeps channels only while referenced.
  const channel = diagnosticsChannel.channel(name);
  return {
    name,
    get hasSubscribers() {
      return channel.hasSubscribers;
    },
    publish: (message) => channel.publish(message),
    subscribe: (handler) => {
      const listener = (message: unknown) => handler(message as T);
      channel.subscribe(listener);
      return () => {
        channel.unsubscribe(listener);
      };
    },
  };
}

/** A Redis connection failed or dropped; the store reconnects by itself. */
export interface CacheConnectionErrorEvent {
  store: 'redis';
  connection: 'commands' | 'subscriber';
  error: unknown;
}

/** A pub/sub handler threw; the error is contained and the message dropped. */
export interface CacheSubscriberErrorEvent {
  store: 'redis' | 'memory';
  channel: string;
  error: unknown;
}

/** This replica put a deployment in cooldown (published once per cooldown, by the replica that started it). */
export interface CooldownEvent {
  deploymentId: string;
  publicModel: string;
  provider: string;
  /** The error class of the failure that started it. */
  reason: string;
  durationMs: number;
  /** When the deployment goes back into its pool, epoch ms. */
  untilMs: number;
}

/** A spend flush failed: the first of a run of failures; the deltas are kept and retried. */
export interface SpendFlushErrorEvent {
  error: unknown;
  /** Keys whose spend waits to be written. */
  pendingKeys: number;
}

/** Spend left unwritten at shutdown: what an operator must add to `spend_cents` by hand. */
export interface SpendNotWrittenEvent {
  deltas: ReadonlyArray<{ keyId: string; cents: number }>;
}

/** Budget reservations could not be renewed (the cache store failed); they lapse unless a renewal succeeds. */
export interface LeaseRenewErrorEvent {
  error: unknown;
  keyId: string;
}

/** Finished calls' reservations could not be reconciled (the cache store failed); the calls are not affected. */
export interface SettleErrorEvent {
  error: unknown;
  requestIds: readonly string[];
}

/** An upstream reported usage outside the model's bounds; it was clamped before billing. */
export interface UsageClampedEvent {
  requestId: string;
  deploymentId: string;
  upstreamModel: string;
  clamped: ReadonlyArray<{ field: string; reported: unknown; kept: number }>;
}

/**
 * An upstream billed a call more than the worst case its budget reserved (a tokenizer gap past the
 * margin, output past the bound it was given): the call is billed in full, and the budget's
 * overspend bound (one call's worst case) no longer holds by this much.
 */
export interface BudgetBoundExceededEvent {
  requestId: string;
  keyId: string;
  deploymentId: string;
  provider: string;
  upstreamModel: string;
  reservedCents: number;
  billedCents: number;
}

/** Once per model and process: the served model has no price, so its calls cost 0. */
export interface UnpricedModelEvent {
  provider: string;
  upstreamModel: string;
  deploymentId: string;
}

/** An idle database connection failed and was dropped from the pool. */
export interface DatabaseIdleErrorEvent {
  error: Error;
}

/**
 * A key's or team's period spend first reached 80% or 100% of its budget (once per period and
 * threshold, across replicas); alerts subscribe.
 */
export interface BudgetThresholdEvent {
  scope: 'key' | 'team';
  /** The key's or team's id. */
  id: string;
  percent: 80 | 100;
  /** The budget's period: `daily`, `weekly`, `monthly`, or `lifetime`. */
  period: string;
  /** Start of the period crossed (RFC 3339). */
  periodStart: string;
  spendCents: number;
  budgetCents: number;
}

/** An extension's breaker tripped (its consecutive failures reached the threshold). */
export interface ExtensionTrippedEvent {
  extensionId: string;
  critical: boolean;
  /** The last failure's reason (never the call's content). */
  reason: string;
  /** What failed: a throw, a timeout, the memory limit, a malformed result. */
  kind: string;
}

export const DIAGNOSTICS = Object.freeze({
  cacheConnectionError: eventChannel<CacheConnectionErrorEvent>('switchyard:cache:connection-error'),
  cacheSubscriberError: eventChannel<CacheSubscriberErrorEvent>('switchyard:cache:subscriber-error'),
  routerCooldown: eventChannel<CooldownEvent>('switchyard:router:cooldown'),
  spendFlushError: eventChannel<SpendFlushErrorEvent>('switchyard:limits:spend-flush-error'),
  spendFlushRecovered: eventChannel<Record<string, never>>('switchyard:limits:spend-flush-recovered'),
  spendNotWritten: eventChannel<SpendNotWrittenEvent>('switchyard:limits:spend-not-written'),
  leaseRenewError: eventChannel<LeaseRenewErrorEvent>('switchyard:limits:lease-renew-error'),
  settleError: eventChannel<SettleErrorEvent>('switchyard:limits:settle-error'),
  usageClamped: eventChannel<UsageClampedEvent>('switchyard:limits:usage-clamped'),
  unpricedModel: eventChannel<UnpricedModelEvent>('switchyard:limits:unpriced-model'),
  budgetBoundExceeded: eventChannel<BudgetBoundExceededEvent>('switchyard:budget:bound-exceeded'),
  databaseIdleError: eventChannel<DatabaseIdleErrorEvent>('switchyard:store:idle-connection-error'),
  budgetThreshold: eventChannel<BudgetThresholdEvent>('switchyard:budget:threshold'),
  extensionTripped: eventChannel<ExtensionTrippedEvent>('switchyard:extensions:tripped'),
});
