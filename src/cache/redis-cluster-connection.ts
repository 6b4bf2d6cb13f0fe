import { setTimeout as delay } from 'node:timers/promises';
import { createCluster } from '@redis/client';
import { publishConnectionError } from './cache-diagnostics.ts';
import { CacheUnavailableError } from './cache-store.ts';
import {
  type RedisConnection,
  type RedisConnectionOptions,
  RedisSetupRefusedError,
  reconnectDelay,
  setupRefusal,
} from './redis-connection.ts';
import { shutDown } from './redis-node-connection.ts';

/** A Redis Cluster's seed nodes (`REDIS_CLUSTER_NODES`), parsed by redis-cluster-nodes.ts. */
export interface RedisClusterNodes {
  /** `redis[s]://host:port`, one per seed node. */
  urls: string[];
  /** ACL credentials and TLS, for the seeds and every node discovered from them. */
  username?: string;
  password?: string;
  tls: boolean;
}

type RedisCluster = ReturnType<typeof createCluster>;

/**
 * A Redis Cluster through node-redis's cluster client: a command goes to the master of its first
 * key's slot (every key of one script shares a hash tag, so one slot), following MOVED and ASK
 * after a failover or a resharding. Pub/sub is sharded (SSUBSCRIBE/SPUBLISH, Redis 7): a channel
 * lives on the shard of its slot instead of being broadcast to every node.
 *
 * The cluster client gives up when no seed answers; here the first connection is tried again
 * with the reconnect backoff until it succeeds, so a replica starts during an outage. Once
 * connected, node-redis reconnects each node by itself and refreshes the topology when a node
 * keeps failing (a master that failed over).
 */
export class RedisClusterConnection implements RedisConnection {
  readonly #cluster: RedisCluster;
  readonly #options: RedisConnectionOptions;
  #closed = false;

  constructor(nodes: RedisClusterNodes, options: RedisConnectionOptions) {
    this.#options = options;
    const socket = {
      connectTimeout: options.connectTimeoutMs,
      tls: nodes.tls,
      reconnectStrategy: (retries: number) => reconnectDelay(retries, options.reconnectMaxDelayMs),
    } as const;
    this.#cluster = createCluster({
      rootNodes: nodes.urls.map((url) => ({ url })),
      defaults: {
        username: nodes.username,
        password: nodes.password,
        disableOfflineQueue: true,
        socket,
      },
      // The store's deadlines guard every command (see redis-node-connection.ts); the nodes take
      // the cluster's command options, so this turns node-redis's timer per command off there too.
      commandOptions: { timeout: undefined },
      // A failed-over master's connection keeps failing: refresh the topology after a second of it.
      topologyRefreshOnReconnectionAttemptStrategy: 1000,
    });
    this.#cluster.on('error', (error: unknown) => publishConnectionError('commands', error));
    this.#cluster.on('node-error', (error: unknown) => publishConnectionError('commands', error));
    this.#cluster.on('sharded-channel-moved-error', (error: unknown) =>
      publishConnectionError('subscriber', error),
    );
  }

  send<T>(firstKey: string | undefined, args: string[]): Promise<T> {
    return this.#cluster.sendCommand<T>(firstKey, false, args);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#cluster.sendCommand(channel, false, ['SPUBLISH', channel, message]);
  }

  subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    return this.#cluster.sSubscribe(channel, listener);
  }

  unsubscribe(channel: string, listener: (message: string) => void): Promise<void> {
    return this.#cluster.sUnsubscribe(channel, listener);
  }

  /** Every master answers and every sharded subscriber connection is up. */
  async ping(): Promise<void> {
    if (!this.#cluster.isReady) throw new CacheUnavailableError('the Redis Cluster is not connected');
    const masters = this.#cluster.masters;
    if (masters.length === 0) throw new CacheUnavailableError('the Redis Cluster has no master');
    await Promise.all(
      masters.map(async (master) => {
        if (master.pubSub !== undefined && !master.pubSub.client.isReady) {
          throw new CacheUnavailableError(`the subscriber connection to ${master.address} is down`);
        }
        const client = await this.#cluster.nodeClient(master);
        await client.ping();
      }),
    );
  }

  /**
   * Not done on a cluster: the cluster client owns one connection per node and cannot replace one
   * (destroying it would close it for good). A blackholed node's connection is failed over or
   * reconnected by node-redis itself; docs/operations.md says what this leaves open.
   */
  resetCommands(): void {
    publishConnectionError('commands', new CacheUnavailableError('a command passed its deadline'));
  }

  onSubscriberReady(listener: () => void): void {
    this.#cluster.on('node-ready', listener);
    this.#cluster.on('connect', listener);
  }

  /** Tries the seeds until one answers, waiting for that at most `waitMs`; a refused setup fails. */
  async start(waitMs: number): Promise<void> {
    const refused = await setupRefusal(this.#cluster, this.#connect(), waitMs);
    if (refused === undefined) return;
    await this.close();
    throw new RedisSetupRefusedError(refused.message);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (!this.#cluster.isOpen) return;
    if (!this.#cluster.isReady) {
      this.#cluster.destroy();
      return;
    }
    await shutDown({
      isOpen: true,
      isReady: true,
      close: () => this.#cluster.close(),
      destroy: () => this.#cluster.destroy(),
    });
  }

  /** Connects, trying again with the reconnect backoff while no seed answers. */
  async #connect(): Promise<void> {
    for (let retries = 0; !this.#closed; retries++) {
      try {
        await this.#cluster.connect();
        // close() came while it connected, and found nothing to close yet.
        if (this.#closed) this.#cluster.destroy();
        return;
      } catch (error) {
        publishConnectionError('commands', error);
        await delay(reconnectDelay(retries, this.#options.reconnectMaxDelayMs));
      }
    }
  }
}
