import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createClient } from '@redis/client';
import { freePortBelowEphemeral } from './free-port.ts';

const run = promisify(execFile);

/** How long a node stays unreachable before its replica takes over: short, so a failover test is quick. */
const NODE_TIMEOUT_MS = 1000;

export interface RedisClusterNode {
  port: number;
  process: ChildProcess;
}

/** A real Redis Cluster of three masters with a replica each, on this machine, for one test file. */
export interface TestRedisCluster {
  /** Every node, masters and replicas (which is which changes with failovers). */
  nodes: RedisClusterNode[];
  /** `REDIS_CLUSTER_NODES` for the gateway: every node as a seed. */
  seeds: string;
  /** The port of the master serving `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** Kills the master of `key`'s slot (SIGKILL) and resolves when its replica has taken over. */
  failOver(key: string): Promise<{ killed: number; promoted: number }>;
  /** Stops every node and deletes the directory. */
  close(): Promise<void>;
}

/**
 * Starts six `redis-server --cluster-enabled yes` on free ports in a temporary directory, joins
 * them with `redis-cli --cluster create --cluster-replicas 1`, and waits until the cluster is ok.
 */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'sy-redis-cluster-'));
  const nodes: RedisClusterNode[] = [];
  try {
    for (let i = 0; i < 6; i++) nodes.push(await startRedisNode(dir, await freeClusterPort()));
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    await waitForClusterOk(nodes.map((n) => n.port));
  } catch (error) {
    await stopAll(nodes, dir);
    throw error;
  }
  const alive = () => nodes.filter((n) => n.process.exitCode === null && n.process.signalCode === null);
  const masterOf = (key: string) => masterPortOf(alive()[0].port, key);
  return {
    nodes,
    seeds: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    masterOf,
    async failOver(key) {
      const killed = await masterOf(key);
      const node = nodes.find((n) => n.port === killed);
      node?.process.kill('SIGKILL');
      if (node !== undefined) await once(node.process, 'exit');
      const deadline = Date.now() + 20_000;
      for (;;) {
        const promoted = await masterOf(key).catch(() => killed);
        if (promoted !== killed) {
          await waitForClusterOk(alive().map((n) => n.port));
          return { killed, promoted };
        }
        if (Date.now() > deadline) throw new Error(`no replica took over from ${killed}`);
        await sleep(200);
      }
    },
    close: () => stopAll(nodes, dir),
  };
}

/**
 * One `redis-server` on `port`, its files in `dir`, nothing saved to disk; a cluster node unless
 * `cluster` is false (a test's own server, which it may FLUSHDB: the shared one is never flushed).
 */
export async function startRedisNode(dir: string, port: number, cluster = true): Promise<RedisClusterNode> {
  const clusterArgs = [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout',
    String(NODE_TIMEOUT_MS),
  ];
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      ...(cluster ? clusterArgs : []),
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      // A replica syncs at once instead of after 5 s: one that never synced cannot take over.
      '--repl-diskless-sync-delay',
      '0',
      '--daemonize',
      'no',
      '--logfile',
      join(dir, `redis-${port}.log`),
    ],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 10_000;
  while ((await cli(port, 'PING').catch(() => '')).trim() !== 'PONG') {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`redis-server on ${port} did not start`);
    await sleep(50);
  }
  return { port, process: child };
}

export async function stopAll(nodes: RedisClusterNode[], dir: string): Promise<void> {
  await Promise.all(
    nodes.map(async ({ process: child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }),
  );
  await rm(dir, { recursive: true, force: true });
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { timeout: 5_000 });
  return stdout;
}

async function waitForClusterOk(ports: number[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (const port of ports) {
    const client = createClient({ socket: { port, host: '127.0.0.1' } });
    await client.connect();
    try {
      for (;;) {
        const info = String(await client.sendCommand(['CLUSTER', 'INFO']));
        const replication = String(await client.sendCommand(['INFO', 'replication']));
        // A replica counts once it has synced: before that it cannot take over from its master.
        const synced = replication.includes('role:master') || replication.includes('master_link_status:up');
        if (info.includes('cluster_state:ok') && synced) break;
        if (Date.now() > deadline) throw new Error(`cluster not ok on ${port}: ${info}`);
        await sleep(100);
      }
    } finally {
      client.destroy();
    }
  }
}

/** The port of the master of `key`'s slot, as the node on `port` sees the cluster. */
async function masterPortOf(port: number, key: string): Promise<number> {
  const client = createClient({ socket: { port, host: '127.0.0.1' } });
  await client.connect();
  try {
    const slot = Number(await client.sendCommand(['CLUSTER', 'KEYSLOT', key]));
    const ranges = (await client.sendCommand(['CLUSTER', 'SLOTS'])) as Array<
      [number, number, [string, number]]
    >;
    const range = ranges.find(([from, to]) => from <= slot && slot <= to);
    if (range === undefined) throw new Error(`no master for slot ${slot}`);
    return Number(range[2][1]);
  } finally {
    client.destroy();
  }
}

/** A port free for the node and for its cluster bus (the port + 10000). */
export function freeClusterPort(): Promise<number> {
  return freePortBelowEphemeral([10_000]);
}
