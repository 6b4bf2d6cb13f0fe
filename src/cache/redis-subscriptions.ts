import { deliverToSubscriber, publishSubscriptionState } from './cache-diagnostics.ts';

type Handler = (message: string) => void;

/** How the registry reaches Redis: the store's subscribe and unsubscribe, under its deadlines. */
export interface SubscriptionTransport {
  subscribe(name: string, listener: Handler): Promise<void>;
  unsubscribe(name: string, listener: Handler): Promise<void>;
}

interface ChannelEntry {
  /** The channel as the gateway names it (no key prefix), for diagnostics. */
  readonly channel: string;
  readonly handlers: Set<Handler>;
  /** The one Redis listener of the channel, handing each message to every handler. */
  readonly listener: Handler;
  state: 'waiting' | 'subscribing' | 'live';
  /** A try failed since it was last live: its coming back is worth a log line. */
  waited: boolean;
}

/**
 * The store's pub/sub subscriptions, kept whether or not Redis answers. A subscription made while
 * the subscriber connection is down (a replica starting during an outage) is registered and
 * waits: it is tried again each time a subscriber connection becomes ready and every
 * `retryMs`, and each failed try is published (switchyard:cache:subscription), so the log says
 * what waits. Once live, node-redis subscribes it again after every reconnect by itself.
 */
export class RedisSubscriptions {
  readonly #transport: SubscriptionTransport;
  readonly #retryMs: number;
  readonly #entries = new Map<string, ChannelEntry>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(transport: SubscriptionTransport, retryMs: number) {
    this.#transport = transport;
    this.#retryMs = retryMs;
  }

  /** Channels registered but not yet subscribed in Redis. */
  get waiting(): number {
    let count = 0;
    for (const entry of this.#entries.values()) if (entry.state !== 'live') count++;
    return count;
  }

  /**
   * Registers `handler` on `name` (the prefixed channel). Resolves once Redis has the
   * subscription, or once the first try failed (then it waits); never rejects for an outage.
   */
  async add(name: string, channel: string, handler: Handler): Promise<() => Promise<void>> {
    let entry = this.#entries.get(name);
    if (entry === undefined) {
      const handlers = new Set<Handler>();
      const listener = (message: string) => {
        for (const each of handlers) deliverToSubscriber('redis', channel, each, message);
      };
      entry = { channel, handlers, listener, state: 'waiting', waited: false };
      this.#entries.set(name, entry);
    }
    entry.handlers.add(handler);
    if (entry.state === 'waiting') await this.#attempt(name, entry);
    const subscribed = entry;
    return () => this.#remove(name, subscribed, handler);
  }

  /** Tries every waiting channel again (a subscriber connection just became ready). */
  retry(): void {
    for (const [name, entry] of this.#entries) if (entry.state === 'waiting') void this.#attempt(name, entry);
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #attempt(name: string, entry: ChannelEntry): Promise<void> {
    if (this.#closed) return;
    entry.state = 'subscribing';
    try {
      await this.#transport.subscribe(name, entry.listener);
    } catch (error) {
      entry.state = 'waiting';
      entry.waited = true;
      publishSubscriptionState({ store: 'redis', channel: entry.channel, state: 'waiting', error });
      this.#startTimer();
      return;
    }
    entry.state = 'live';
    if (this.#entries.get(name) !== entry) {
      // Every handler left while the subscription was on its way.
      await this.#transport.unsubscribe(name, entry.listener).catch(() => {});
      return;
    }
    if (entry.waited)
      publishSubscriptionState({ store: 'redis', channel: entry.channel, state: 'subscribed' });
    entry.waited = false;
    if (this.waiting === 0) this.#stopTimer();
  }

  async #remove(name: string, entry: ChannelEntry, handler: Handler): Promise<void> {
    entry.handlers.delete(handler);
    if (entry.handlers.size > 0 || this.#entries.get(name) !== entry) return;
    this.#entries.delete(name);
    if (this.waiting === 0) this.#stopTimer();
    if (entry.state === 'live' && !this.#closed) await this.#transport.unsubscribe(name, entry.listener);
  }

  #startTimer(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setInterval(() => this.retry(), this.#retryMs);
    // A waiting subscription must not keep the process alive.
    this.#timer.unref();
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
