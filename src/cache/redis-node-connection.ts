import { setTimeout as delay } from 'node:timers/promises';
import { createClient } from '@redis/client';
import { publishConnectionError } from './cache-diagnostics.ts';
import { CacheUnavailableError } from './cache-store.ts';
import {
  type RedisConnection,
  type RedisConnectionOptions,
  RedisSetupRefusedError,
  reconnectDelay,
  setupRefusal,
} from './redis-connection.ts';

type RedisClient = ReturnType<typeof createClient>;

/** How long `close()` lets pending replies drain before it drops the connections. */
const CLOSE_GRACE_MS = 1000;

/**
 * One Redis server (`REDIS_URL`): a connection for commands and a second one for pub/sub, which
 * node-redis subscribes again after a reconnect. Both reconnect forever with capped backoff.
 */
export class RedisNodeConnection implements RedisConnection {
  #client: RedisClient;
  readonly #subscriber: RedisClient;
  readonly #setupTimeoutMs: number;
  #closing = false;

  constructor(url: string, options: RedisConnectionOptions) {
    this.#setupTimeoutMs = options.commandTimeoutMs;
    this.#client = createClient({
      url,
      disableOfflineQueue: true,
      // node-redis gives every command a 5 s AbortSignal.timeout by default (DEFAULT_COMMAND_TIMEOUT
      // in @redis/client): a timer per command that fires long after the reply and builds a
      // DOMException. It only ever guards commands not yet written, and the store's deadlines
      // guard every command, so it is turned off (the queue arms it only for a truthy timeout).
      commandOptions: { timeout: undefined },
      socket: {
        connectTimeout: options.connectTimeoutMs,
        reconnectStrategy: (retries) => reconnectDelay(retries, options.reconnectMaxDelayMs),
      },
    });
    this.#subscriber = this.#client.duplicate();
    this.#watchCommands(this.#client);
    this.#subscriber.on('error', (error: unknown) => publishConnectionError('subscriber', error));
  }

  /**
   * Without a listener an 'error' event would crash the process; the client reconnects by itself.
   * A connection whose setup (node-redis's CLIENT SETINFO, AUTH, SELECT) gets no reply within a
   * command's deadline lost it: the client would wait for it forever, refusing every command as
   * offline, so it is reset like a command past its deadline.
   */
  #watchCommands(client: RedisClient): void {
    let setup: NodeJS.Timeout | undefined;
    client.on('error', (error: unknown) => publishConnectionError('commands', error));
    client.on('connect', () => {
      clearTimeout(setup);
      setup = setTimeout(() => {
        if (client === this.#client && client.isOpen && !client.isReady) this.resetCommands();
      }, this.#setupTimeoutMs).unref();
    });
    client.on('ready', () => clearTimeout(setup));
    client.on('end', () => clearTimeout(setup));
  }

  /** Replaces the command connection (RedisConnection.resetCommands), as the Postgres pool drops a client whose statement timed out. */
  resetCommands(): void {
    if (this.#closing) return;
    const lost = this.#client;
    const fresh = lost.duplicate();
    this.#watchCommands(fresh);
    // It rejects only when close() or a later reset interrupts it; failures go to 'error'.
    fresh.connect().catch(() => {});
    this.#client = fresh;
    lost.destroy();
    publishConnectionError(
      'commands',
      new CacheUnavailableError('reset after a command passed its deadline'),
    );
  }

  send<T>(_firstKey: string | undefined, args: string[]): Promise<T> {
    return this.#client.sendCommand<T>(args);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#client.publish(channel, message);
  }

  subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    return this.#subscriber.subscribe(channel, listener);
  }

  unsubscribe(channel: string, listener: (message: string) => void): Promise<void> {
    return this.#subscriber.unsubscribe(channel, listener);
  }

  /** Both connections must be up: without the subscriber, invalidations from other replicas are lost. */
  async ping(): Promise<void> {
    if (!this.#subscriber.isReady) throw new CacheUnavailableError('the Redis subscriber connection is down');
    await this.#client.ping();
  }

  onSubscriberReady(listener: () => void): void {
    this.#subscriber.on('ready', listener);
  }

  /**
   * Waits for both connections, or `waitMs`, whichever comes first. Redis that answers but
   * refuses the connection's setup (a database index it does not have, wrong credentials) would be
   * refused again on every reconnect: that fails the start with RedisSetupRefusedError.
   */
  async start(waitMs: number): Promise<void> {
    const connected = Promise.all([this.#client.connect(), this.#subscriber.connect()]);
    // It rejects only when close() interrupts it; connection failures go to the 'error' events.
    connected.catch(() => {});
    const refused = await setupRefusal(this.#client, connected, waitMs);
    if (refused === undefined) return;
    await this.close();
    throw new RedisSetupRefusedError(refused.message);
  }

  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all([shutDown(this.#client), shutDown(this.#subscriber)]);
  }
}

/** Lets pending replies drain for a moment, then drops the connection: a dead server cannot hold shutdown. */
export async function shutDown(client: {
  isOpen: boolean;
  isReady: boolean;
  close(): Promise<unknown>;
  destroy(): unknown;
}): Promise<void> {
  if (!client.isOpen) return;
  if (!client.isReady) {
    client.destroy();
    return;
  }
  const grace = new AbortController();
  const drained = await Promise.race([
    client.close().then(() => true),
    delay(CLOSE_GRACE_MS, false, { signal: grace.signal }),
  ]);
  grace.abort();
  if (!drained) client.destroy();
}
