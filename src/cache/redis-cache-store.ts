import { setTimeout as delay } from 'node:timers/promises';
import { createClient, ErrorReply } from '@redis/client';
import { deliverToSubscriber, publishConnectionError } from './cache-diagnostics.ts';
import type {
  CacheStore,
  CallAdmissionDecision,
  CallAdmissionRequest,
  CallsSettlement,
  ReservationRenewal,
  WindowAdmitRequest,
  WindowDecision,
} from './cache-store.ts';
import { CacheUnavailableError } from './cache-store.ts';
import { CommandDeadlines } from './command-deadlines.ts';
import { assertValidKeyPrefix, callCountKey, prefixedKey, windowKeys } from './redis-keys.ts';
import {
  callAdmission,
  ignoreReply,
  isOk,
  remainingTtl,
  scopesOf,
  scriptArgs,
  windowDecision,
} from './redis-replies.ts';
import { REDIS_SCRIPTS, type RedisScript } from './redis-scripts.ts';

export interface RedisCacheStoreOptions {
  /** `redis[s]://[[user][:password]@]host[:port][/db]` */
  url: string;
  /** Put before every key and channel, outside the `{hash-tag}`; must not contain `{` or `}`. */
  keyPrefix: string;
  /**
   * Wait for any command, `ping()` included, after which it fails with CacheUnavailableError.
   * Deadlines are checked every tenth of it, so a command fails within 1.1 times this.
   */
  commandTimeoutMs?: number;
  /** Longest wait for a TCP connection (each attempt). */
  connectTimeoutMs?: number;
  /** Longest wait of `connect()` for the first connection; the store keeps trying after it. */
  startWaitMs?: number;
  /** Cap of the exponential reconnect backoff. */
  reconnectMaxDelayMs?: number;
}

/** SPEC.md: a cache outage answers 503 quickly; with the check interval, a command fails within 1.1 s. */
const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
/** Deadline checks per command timeout: a command fails at most a tenth of the timeout late. */
const DEADLINE_CHECKS_PER_TIMEOUT = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 1000;
const DEFAULT_START_WAIT_MS = 1000;
/** Short, so a replica is back within about a second of Redis; one attempt a second is cheap. */
const DEFAULT_RECONNECT_MAX_DELAY_MS = 1000;
/** How long `close()` lets pending replies drain before it drops the connections. */
const CLOSE_GRACE_MS = 1000;

/** Error replies that mean "the server cannot serve now", not "the command was wrong". */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|CLUSTERDOWN|TRYAGAIN|NOREPLICAS)\b/;

type RedisClient = ReturnType<typeof createClient>;

/**
 * The cache store shared by replicas, on node-redis. Fails fast during an outage: the offline
 * queue is off (a command while reconnecting rejects at once), every command has a deadline
 * (command-deadlines.ts: one interval for all of them, no timer per command), and both reject
 * with CacheUnavailableError. The client reconnects forever with capped backoff, so
 * the store recovers by itself; pub/sub runs on a second connection and node-redis subscribes
 * it again after a reconnect.
 *
 * Build it with `RedisCacheStore.connect()`, which waits at most `startWaitMs` for Redis: a
 * gateway started during an outage comes up (not ready) and the store connects when Redis does.
 * A `ttlMs` of 0 or less means no expiry.
 */
export class RedisCacheStore implements CacheStore {
  readonly kind = 'redis' as const;
  #client: RedisClient;
  #subscriber: RedisClient;
  #prefix: string;
  #deadlines: CommandDeadlines;
  #commandTimeoutMs: number;
  #startWaitMs: number;
  #closing: Promise<void> | undefined;

  static async connect(options: RedisCacheStoreOptions): Promise<RedisCacheStore> {
    const store = new RedisCacheStore(options);
    await store.#start();
    return store;
  }

  /** Creates the store without connecting; `connect()` is the way to get a working one. */
  constructor(options: RedisCacheStoreOptions) {
    assertValidKeyPrefix(options.keyPrefix);
    this.#prefix = options.keyPrefix;
    const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.#deadlines = new CommandDeadlines({
      timeoutMs: commandTimeoutMs,
      checkIntervalMs: Math.max(1, Math.ceil(commandTimeoutMs / DEADLINE_CHECKS_PER_TIMEOUT)),
      onExpired: () => this.#resetConnection(),
    });
    this.#startWaitMs = options.startWaitMs ?? DEFAULT_START_WAIT_MS;
    const reconnectMaxDelayMs = options.reconnectMaxDelayMs ?? DEFAULT_RECONNECT_MAX_DELAY_MS;
    this.#client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      // node-redis gives every command a 5 s AbortSignal.timeout by default (DEFAULT_COMMAND_TIMEOUT
      // in @redis/client): a timer per command that fires long after the reply and builds a
      // DOMException. It only ever guards commands not yet written, and the deadlines here
      // guard every command, so it is turned off (the queue arms it only for a truthy timeout).
      commandOptions: { timeout: undefined },
      socket: {
        connectTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        // Exponential from 50 ms with jitter, so replicas do not reconnect in step; never gives up.
        reconnectStrategy: (retries) =>
          Math.min(50 * 2 ** Math.min(retries, 10), reconnectMaxDelayMs) + Math.floor(Math.random() * 50),
      },
    });
    this.#subscriber = this.#client.duplicate();
    this.#commandTimeoutMs = commandTimeoutMs;
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
        if (client === this.#client && client.isOpen && !client.isReady) this.#resetConnection();
      }, this.#commandTimeoutMs).unref();
    });
    client.on('ready', () => clearTimeout(setup));
    client.on('end', () => clearTimeout(setup));
  }

  /**
   * A command past its deadline may have lost its request or its reply on the way (a blackhole
   * drops bytes and keeps the connection open). node-redis pairs replies with commands in order,
   * so from then on every reply would go to the command before its own: an RPM check would read
   * another command's answer. The connection is replaced, as the Postgres pool drops a client
   * whose statement timed out; the old one's pending commands fail (503), none is answered wrong.
   */
  #resetConnection(): void {
    if (this.#closing !== undefined) return;
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

  incrBy(key: string, by: number, ttlMs: number): Promise<number> {
    const script = REDIS_SCRIPTS.incrBy;
    const args = ['EVALSHA', script.sha1, '1', this.#key(key), String(by), ttlArg(ttlMs)];
    return this.#eval(script, args).then(Number);
  }

  get(key: string): Promise<string | null> {
    return this.#send<string | null>(['GET', this.#key(key)]);
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    const args =
      ttlMs > 0 ? ['SET', this.#key(key), value, 'PX', ttlArg(ttlMs)] : ['SET', this.#key(key), value];
    return this.#send(args).then(ignoreReply);
  }

  /** SET NX PX is atomic by itself, so it needs no script. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const args =
      ttlMs > 0
        ? ['SET', this.#key(key), value, 'NX', 'PX', ttlArg(ttlMs)]
        : ['SET', this.#key(key), value, 'NX'];
    return this.#send(args).then(isOk);
  }

  /**
   * Deletes the key and the sliding log or call count kept under the same logical name, as the
   * memory store does.
   */
  del(key: string): Promise<void> {
    return this.#run(async () => {
      // Two commands: without a hash tag in `key` the log lives in another Cluster slot.
      const windows = [...windowKeys(this.#prefix, key), callCountKey(this.#prefix, key)];
      await Promise.all([this.#client.del(this.#key(key)), this.#client.del(windows)]);
    });
  }

  ttlMs(key: string): Promise<number | null> {
    return this.#send<number>(['PTTL', this.#key(key)]).then(remainingTtl);
  }

  windowAdmit(key: string, request: WindowAdmitRequest): Promise<WindowDecision> {
    const [logKey, costKey, sumKey] = windowKeys(this.#prefix, key);
    const script = REDIS_SCRIPTS.windowAdmit;
    const args = [
      'EVALSHA',
      script.sha1,
      '3',
      logKey,
      costKey,
      sumKey,
      request.id,
      String(request.cost),
      String(request.limit),
      windowArg(request.windowMs),
    ];
    const limit = request.limit;
    return this.#eval(script, args).then((reply) => windowDecision(reply, limit));
  }

  windowAdjust(key: string, id: string, cost: number, windowMs: number): Promise<void> {
    const [logKey, costKey, sumKey] = windowKeys(this.#prefix, key);
    const script = REDIS_SCRIPTS.windowAdjust;
    const args = [
      'EVALSHA',
      script.sha1,
      '3',
      logKey,
      costKey,
      sumKey,
      id,
      String(cost),
      windowArg(windowMs),
    ];
    return this.#eval(script, args).then(ignoreReply);
  }

  windowState(key: string, limit: number, windowMs: number): Promise<WindowDecision> {
    const [logKey, costKey, sumKey] = windowKeys(this.#prefix, key);
    const script = REDIS_SCRIPTS.windowState;
    const args = ['EVALSHA', script.sha1, '3', logKey, costKey, sumKey, String(limit), windowArg(windowMs)];
    return this.#eval(script, args).then((reply) => windowDecision(reply, limit));
  }

  admitCall(request: CallAdmissionRequest): Promise<CallAdmissionDecision> {
    const scopes = scopesOf(request);
    const keys: string[] = [];
    const argv = [request.id, windowArg(request.windowMs), String(scopes.length)];
    for (const { requests, tokens, budget } of scopes) {
      if (requests !== null) keys.push(callCountKey(this.#prefix, requests.key));
      keys.push(...this.#limitKeys(tokens, budget));
      argv.push(
        flagArg(requests),
        String(requests?.limit ?? 0),
        flagArg(tokens),
        String(tokens?.limit ?? 0),
        String(tokens?.cost ?? 0),
        flagArg(budget),
        String(budget?.limit ?? 0),
        String(budget?.amount ?? 0),
        windowArg(budget?.leaseMs ?? 1),
      );
    }
    const script = REDIS_SCRIPTS.admitCall;
    return this.#eval(script, scriptArgs(script, keys, argv)).then((reply) => callAdmission(reply, request));
  }

  settleCalls(settlement: CallsSettlement): Promise<void> {
    const scopes = scopesOf(settlement);
    const keys: string[] = [];
    const argv = [windowArg(settlement.windowMs), String(scopes.length)];
    for (const { tokens, budget } of scopes) {
      keys.push(...this.#limitKeys(tokens, budget));
      const entries = tokens?.entries ?? [];
      const release = budget?.release ?? [];
      argv.push(
        flagArg(tokens),
        flagArg(budget),
        String(budget?.costCents ?? 0),
        windowArg(budget?.leaseMs ?? 1),
        String(entries.length),
        String(release.length),
      );
      for (const entry of entries) argv.push(entry.id, String(entry.cost));
      argv.push(...release);
    }
    const script = REDIS_SCRIPTS.settleCalls;
    return this.#eval(script, scriptArgs(script, keys, argv)).then(ignoreReply);
  }

  renewReservations(renewal: ReservationRenewal): Promise<void> {
    if (renewal.ids.length === 0) return Promise.resolve();
    const script = REDIS_SCRIPTS.renewReservations;
    const keys = windowKeys(this.#prefix, renewal.heldKey);
    const args = ['EVALSHA', script.sha1, '3', ...keys, windowArg(renewal.leaseMs), ...renewal.ids];
    return this.#eval(script, args).then(ignoreReply);
  }

  /** The keys of one scope's token window and budget (spend counter and reservation log) present. */
  #limitKeys(window: { key: string } | null, budget: { key: string; heldKey: string } | null): string[] {
    const keys: string[] = window === null ? [] : windowKeys(this.#prefix, window.key);
    if (budget !== null) keys.push(this.#key(budget.key), ...windowKeys(this.#prefix, budget.heldKey));
    return keys;
  }

  publish(channel: string, message: string): Promise<void> {
    return this.#run(async () => {
      await this.#client.publish(this.#prefix + channel, message);
    });
  }

  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    const name = this.#prefix + channel;
    const listener = (message: string) => deliverToSubscriber('redis', channel, handler, message);
    return this.#run(async () => {
      await this.#subscriber.subscribe(name, listener);
      return async () => {
        if (this.#closing !== undefined) return;
        await this.#run(() => this.#subscriber.unsubscribe(name, listener));
      };
    });
  }

  /** Both connections must be up: without the subscriber, invalidations from other replicas are lost. */
  ping(): Promise<void> {
    return this.#run(async () => {
      if (!this.#subscriber.isReady)
        throw new CacheUnavailableError('the Redis subscriber connection is down');
      await this.#client.ping();
    });
  }

  close(): Promise<void> {
    this.#closing ??= Promise.all([shutDown(this.#client), shutDown(this.#subscriber)]).then(() =>
      this.#deadlines.close(),
    );
    return this.#closing;
  }

  /**
   * Waits for both connections, or `startWaitMs`, whichever comes first. Redis that answers but
   * refuses the connection's setup (a database index it does not have, wrong credentials) would be
   * refused again on every reconnect: that fails the start with RedisSetupRefusedError.
   */
  async #start(): Promise<void> {
    const connected = Promise.all([this.#client.connect(), this.#subscriber.connect()]);
    // It rejects only when close() interrupts it; connection failures go to the 'error' events.
    connected.catch(() => {});
    const timeout = new AbortController();
    let onError: (error: unknown) => void = () => {};
    const refused = new Promise<ErrorReply>((resolve) => {
      onError = (error) => {
        if (error instanceof ErrorReply && !UNAVAILABLE_REPLY.test(error.message)) resolve(error);
      };
    });
    this.#client.on('error', onError);
    const outcome = await Promise.race([
      connected,
      refused,
      delay(this.#startWaitMs, undefined, { signal: timeout.signal }),
    ]).catch(() => undefined);
    timeout.abort();
    this.#client.off('error', onError);
    if (!(outcome instanceof ErrorReply)) return;
    await this.close();
    throw new RedisSetupRefusedError(outcome.message);
  }

  /**
   * Sends one command as raw arguments: the hot operations skip node-redis's typed command layer
   * (a parser object and an async frame per call) and its reply transforms, which they do not use.
   */
  #send<T>(args: string[]): Promise<T> {
    if (this.#closing !== undefined) return rejectClosed();
    return this.#deadlines.track(this.#client.sendCommand<T>(args), toStoreError);
  }

  /**
   * Runs a script with `args` = `['EVALSHA', sha1, numkeys, ...keys, ...argv]`, falling back to
   * EVAL (which also caches the script) after a server restart, as node-redis's own scripts do.
   */
  #eval(script: RedisScript, args: string[]): Promise<unknown> {
    if (this.#closing !== undefined) return rejectClosed();
    const reply = this.#client.sendCommand(args).catch((error: unknown) => {
      if (!(error instanceof ErrorReply && error.message.startsWith('NOSCRIPT'))) throw error;
      args[0] = 'EVAL';
      args[1] = script.source;
      return this.#client.sendCommand(args);
    });
    return this.#deadlines.track(reply, toStoreError);
  }

  /** Runs an operation of the typed client (the cold paths), under the same deadline. */
  #run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return rejectClosed();
    let command: Promise<T>;
    try {
      command = operation();
    } catch (error) {
      return Promise.reject(toStoreError(error));
    }
    return this.#deadlines.track(command, toStoreError);
  }

  #key(key: string): string {
    return prefixedKey(this.#prefix, key);
  }
}

/** Redis answered the connection's setup (AUTH, SELECT) with an error: retrying cannot help. */
export class RedisSetupRefusedError extends Error {
  constructor(reply: string) {
    super(`Redis refused the connection setup: ${reply}`);
    this.name = 'RedisSetupRefusedError';
  }
}

function rejectClosed(): Promise<never> {
  return Promise.reject(new CacheUnavailableError('the cache store is closed'));
}

/** Whole milliseconds, rounded up so a short TTL never becomes 0 (no expiry); 0 or less means none. */
function ttlArg(ttlMs: number): string {
  return ttlMs > 0 ? String(Math.ceil(ttlMs)) : '0';
}

/** A script's "this limit is present" flag. */
function flagArg(part: object | null): string {
  return part === null ? '0' : '1';
}

function windowArg(windowMs: number): string {
  return String(Math.max(1, Math.ceil(windowMs)));
}

/** Errors of the command itself (a wrong type, a script error) stay as they are; the rest mean "unreachable". */
function toStoreError(error: unknown): Error {
  if (error instanceof CacheUnavailableError) return error;
  if (error instanceof ErrorReply && !UNAVAILABLE_REPLY.test(error.message)) return error;
  if (error instanceof TypeError || error instanceof RangeError) return error;
  return new CacheUnavailableError('Redis is unreachable', { cause: error });
}

/** Lets pending replies drain for a moment, then drops the connection: a dead server cannot hold shutdown. */
async function shutDown(client: RedisClient): Promise<void> {
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
