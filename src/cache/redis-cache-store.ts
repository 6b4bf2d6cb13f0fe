import { ErrorReply } from '@redis/client';
import type {
  BudgetRebuild,
  CacheStore,
  CallAdmissionDecision,
  CallAdmissionRequest,
  CallsSettlement,
  ReservationRenewal,
  TokenEntry,
  WindowAdmitRequest,
  WindowDecision,
} from './cache-store.ts';
import { CacheUnavailableError } from './cache-store.ts';
import { CommandDeadlines } from './command-deadlines.ts';
import { RedisClusterConnection, type RedisClusterNodes } from './redis-cluster-connection.ts';
import { type RedisConnection, UNAVAILABLE_REPLY } from './redis-connection.ts';
import { assertValidKeyPrefix, callCountKey, prefixedKey, windowKeys } from './redis-keys.ts';
import { RedisNodeConnection } from './redis-node-connection.ts';
import {
  callAdmission,
  ignoreReply,
  isOk,
  packedScriptArgs,
  remainingTtl,
  scopesOf,
  windowDecision,
} from './redis-replies.ts';
import { REDIS_SCRIPTS, type RedisScript } from './redis-scripts.ts';
import { RedisSubscriptions } from './redis-subscriptions.ts';

export interface RedisCacheStoreOptions {
  /** One server: `redis[s]://[[user][:password]@]host[:port][/db]`. */
  url?: string;
  /** A Redis Cluster (`REDIS_CLUSTER_NODES`), in place of `url`. */
  cluster?: RedisClusterNodes;
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

/** How often a subscription made while Redis is unreachable is tried again (besides at each reconnect). */
const SUBSCRIBE_RETRY_MS = 1000;

/**
 * The cache store shared by replicas, on node-redis: one server, or a Redis Cluster
 * (redis-connection.ts). Fails fast during an outage: the offline queue is off (a command while
 * reconnecting rejects at once), every command has a deadline (command-deadlines.ts: one
 * interval for all of them, no timer per command), and both reject with CacheUnavailableError.
 * The connections reconnect forever with capped backoff, so the store recovers by itself.
 * Subscriptions are kept whether Redis answers or not (redis-subscriptions.ts): one made during
 * an outage waits and is made when Redis is back, and readiness fails until it is.
 *
 * Build it with `RedisCacheStore.connect()`, which waits at most `startWaitMs` for Redis: a
 * gateway started during an outage comes up (not ready) and the store connects when Redis does.
 * A `ttlMs` of 0 or less means no expiry.
 */
export class RedisCacheStore implements CacheStore {
  readonly kind = 'redis' as const;
  #connection: RedisConnection;
  #subscriptions: RedisSubscriptions;
  #prefix: string;
  #deadlines: CommandDeadlines;
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
      onExpired: () => this.#connection.resetCommands(),
    });
    this.#startWaitMs = options.startWaitMs ?? DEFAULT_START_WAIT_MS;
    const connection = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? DEFAULT_RECONNECT_MAX_DELAY_MS,
      commandTimeoutMs,
    };
    if (options.cluster !== undefined) {
      this.#connection = new RedisClusterConnection(options.cluster, connection);
    } else if (options.url !== undefined) {
      this.#connection = new RedisNodeConnection(options.url, connection);
    } else {
      throw new TypeError('RedisCacheStore needs a url or cluster nodes');
    }
    this.#subscriptions = new RedisSubscriptions(
      {
        subscribe: (name, listener) => this.#run(() => this.#connection.subscribe(name, listener)),
        unsubscribe: (name, listener) => this.#run(() => this.#connection.unsubscribe(name, listener)),
      },
      SUBSCRIBE_RETRY_MS,
    );
    this.#connection.onSubscriberReady(() => this.#subscriptions.retry());
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
    // Two commands: without a hash tag in `key` the log lives in another Cluster slot.
    const windows = [...windowKeys(this.#prefix, key), callCountKey(this.#prefix, key)];
    return Promise.all([this.#send(['DEL', this.#key(key)]), this.#send(['DEL', ...windows])]).then(
      ignoreReply,
    );
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
    return this.#eval(script, packedScriptArgs(script, keys, argv)).then((reply) =>
      callAdmission(reply, request),
    );
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
    return this.#eval(script, packedScriptArgs(script, keys, argv)).then(ignoreReply);
  }

  renewReservations(renewal: ReservationRenewal): Promise<void> {
    if (renewal.reservations.length === 0) return Promise.resolve();
    const script = REDIS_SCRIPTS.renewReservations;
    const keys = windowKeys(this.#prefix, renewal.heldKey);
    const args = ['EVALSHA', script.sha1, '3', ...keys, windowArg(renewal.leaseMs)];
    return this.#eval(script, entryArgs(args, renewal.reservations)).then(ignoreReply);
  }

  rebuildBudget(rebuild: BudgetRebuild): Promise<boolean> {
    const script = REDIS_SCRIPTS.rebuildBudget;
    const keys = [this.#key(rebuild.key), ...windowKeys(this.#prefix, rebuild.heldKey)];
    const args = ['EVALSHA', script.sha1, '4', ...keys, String(rebuild.spentCents), ttlArg(rebuild.ttlMs)];
    args.push(windowArg(rebuild.leaseMs));
    return this.#eval(script, entryArgs(args, rebuild.reservations)).then((reply) => Number(reply) === 1);
  }

  /** The keys of one scope's token window and budget (spend counter and reservation log) present. */
  #limitKeys(window: { key: string } | null, budget: { key: string; heldKey: string } | null): string[] {
    const keys: string[] = window === null ? [] : windowKeys(this.#prefix, window.key);
    if (budget !== null) keys.push(this.#key(budget.key), ...windowKeys(this.#prefix, budget.heldKey));
    return keys;
  }

  publish(channel: string, message: string): Promise<void> {
    return this.#run(() => this.#connection.publish(this.#prefix + channel, message));
  }

  /** Resolves once subscribed, or once registered while Redis is unreachable (then it waits). */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>> {
    if (this.#closing !== undefined) return rejectClosed();
    return this.#subscriptions
      .add(this.#prefix + channel, channel, handler)
      .then((remove) => () => (this.#closing === undefined ? remove() : Promise.resolve()));
  }

  /** Every connection must be up and every subscription made: else invalidations from other replicas are lost. */
  ping(): Promise<void> {
    return this.#run(async () => {
      await this.#connection.ping();
      const waiting = this.#subscriptions.waiting;
      if (waiting > 0) throw new CacheUnavailableError(`${waiting} pub/sub subscriptions wait for Redis`);
    });
  }

  close(): Promise<void> {
    this.#subscriptions.close();
    this.#closing ??= this.#connection.close().then(() => this.#deadlines.close());
    return this.#closing;
  }

  /** Waits for Redis at most `startWaitMs`; a refused setup (RedisSetupRefusedError) fails the start. */
  async #start(): Promise<void> {
    try {
      await this.#connection.start(this.#startWaitMs);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Sends one command as raw arguments: the hot operations skip node-redis's typed command layer
   * (a parser object and an async frame per call) and its reply transforms, which they do not use.
   */
  #send<T>(args: string[]): Promise<T> {
    if (this.#closing !== undefined) return rejectClosed();
    return this.#deadlines.track(this.#connection.send<T>(args[1], args), toStoreError);
  }

  /**
   * Runs a script with `args` = `['EVALSHA', sha1, numkeys, ...keys, ...argv]`, falling back to
   * EVAL (which also caches the script) after a server restart, as node-redis's own scripts do.
   */
  #eval(script: RedisScript, args: string[]): Promise<unknown> {
    if (this.#closing !== undefined) return rejectClosed();
    // A script runs on the node of its keys' one slot (every key of a call shares a hash tag).
    const firstKey = args[2] === '0' ? undefined : args[3];
    const reply = this.#connection.send(firstKey, args).catch((error: unknown) => {
      if (!(error instanceof ErrorReply && error.message.startsWith('NOSCRIPT'))) throw error;
      args[0] = 'EVAL';
      args[1] = script.source;
      return this.#connection.send(firstKey, args);
    });
    return this.#deadlines.track(reply, toStoreError);
  }

  /** Runs an operation of the connection (the cold paths), under the same deadline. */
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

function rejectClosed(): Promise<never> {
  return Promise.reject(new CacheUnavailableError('the cache store is closed'));
}

/** Whole milliseconds, rounded up so a short TTL never becomes 0 (no expiry); 0 or less means none. */
function ttlArg(ttlMs: number): string {
  return ttlMs > 0 ? String(Math.ceil(ttlMs)) : '0';
}

/** Appends each entry's id and cost to a script's arguments. */
function entryArgs(args: string[], entries: readonly TokenEntry[]): string[] {
  for (const entry of entries) args.push(entry.id, String(entry.cost));
  return args;
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
