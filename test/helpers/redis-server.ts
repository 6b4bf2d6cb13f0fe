import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeClusterPort, startRedisNode, stopAll } from './redis-cluster.ts';

/** A test file's own Redis server: one it may FLUSHDB without touching other tests' keys. */
export interface TestRedisServer {
  url: string;
  close(): Promise<void>;
}

export async function startRedisServer(): Promise<TestRedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'sy-redis-'));
  const node = await startRedisNode(dir, await freeClusterPort(), false);
  return { url: `redis://127.0.0.1:${node.port}`, close: () => stopAll([node], dir) };
}
