import type { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { ErrorReply } from '@redis/client';

/**
 * What the Redis cache store needs of its connections, so one store runs on one Redis server
 * (redis-node-connection.ts) or on a Redis Cluster (redis-cluster-connection.ts).
 */
export interface RedisConnection {
  /**
   * Sends one command as raw arguments, with no offline queue: it rejects at once while
   * disconnected. `firstKey` routes it to the node of its slot on a cluster.
   */
  send<T>(firstKey: string | undefined, args: string[]): Promise<T>;
  publish(channel: string, message: string): Promise<void>;
  /** Adds a listener of `channel`; rejects while the subscriber connection is down. */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Resolves when every connection the store uses answers (commands and pub/sub). */
  ping(): Promise<void>;
  /** Runs `listener` every time a subscriber connection becomes ready (the first time and after each reconnect). */
  onSubscriberReady(listener: () => void): void;
  /**
   * A command passed its deadline: it may have lost its request or its reply on the way (a
   * blackhole drops bytes and keeps the connection open), and node-redis pairs replies with
   * commands in order, so every later reply would go to the command before its own. The command
   * connection is replaced; its pending commands fail (503), none is answered wrong.
   */
  resetCommands(): void;
  /**
   * Connects, waiting at most `waitMs`; the connection keeps trying after it. Redis that answers
   * but refuses the connection's setup rejects it with RedisSetupRefusedError.
   */
  start(waitMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Waits for `connected` or `waitMs`, whichever is first, and answers the setup refusal `client`
 * reported meanwhile: Redis answering the connection's setup (AUTH, SELECT) with an error other
 * than "cannot serve now" would refuse every reconnect too.
 */
export async function setupRefusal(
  client: Pick<EventEmitter, 'on' | 'off'>,
  connected: Promise<unknown>,
  waitMs: number,
): Promise<ErrorReply | undefined> {
  let onError: (error: unknown) => void = () => {};
  const refused = new Promise<ErrorReply>((resolve) => {
    onError = (error) => {
      if (error instanceof ErrorReply && !UNAVAILABLE_REPLY.test(error.message)) resolve(error);
    };
  });
  client.on('error', onError);
  const timeout = new AbortController();
  const outcome = await Promise.race([
    connected,
    refused,
    delay(waitMs, undefined, { signal: timeout.signal }),
  ]).catch(() => undefined);
  timeout.abort();
  client.off('error', onError);
  return outcome instanceof ErrorReply ? outcome : undefined;
}

/** Connection settings both kinds share. */
export interface RedisConnectionOptions {
  /** Longest wait for a TCP connection (each attempt). */
  connectTimeoutMs: number;
  /** Cap of the exponential reconnect backoff. */
  reconnectMaxDelayMs: number;
  /** The store's command deadline: a connection's setup that takes longer is reset too. */
  commandTimeoutMs: number;
}

/** Redis answered the connection's setup (AUTH, SELECT) with an error: retrying cannot help. */
export class RedisSetupRefusedError extends Error {
  constructor(reply: string) {
    super(`Redis refused the connection setup: ${reply}`);
    this.name = 'RedisSetupRefusedError';
  }
}

/** Error replies that mean "the server cannot serve now", not "the command was wrong". */
export const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN|NOREPLICAS)\b/;

/** Exponential from 50 ms with jitter, so replicas do not reconnect in step; never gives up. */
export function reconnectDelay(retries: number, maxDelayMs: number): number {
  return Math.min(50 * 2 ** Math.min(retries, 10), maxDelayMs) + Math.floor(Math.random() * 50);
}
