/**
 * Where the gateway under test keeps its state. With DATABASE_URL and REDIS_URL in the bench's
 * environment it runs as in production: a fresh database on that server, migrated by the real
 * `migrate` command, and a Redis key prefix of its own; without them, the embedded default in a
 * temporary directory. Either way the run leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@redis/client';
import type { BenchOptions } from './options.ts';
import { queryOnce } from './postgres-query.ts';
import { startChild } from './processes.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

export interface BenchStorage {
  /** For the report: `postgres + redis`, `embedded (PGlite, in-process cache)`, ... */
  description: string;
  /** Environment the gateway needs for this storage (secrets included). */
  env: Record<string, string>;
  masterKey: string;
  hasRedis: boolean;
  cleanup(): Promise<void>;
}

/** Secrets as an operator sets them (variant B needs the keyring, A the credentials key). */
function secrets(): Record<string, string> {
  return {
    MASTER_KEY: `sk-bench-master-${randomBytes(16).toString('hex')}`,
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ENCRYPTION_KEYRING: JSON.stringify({ bench: randomBytes(32).toString('hex') }),
    ACTIVE_ENCRYPTION_KEY_ID: 'bench',
  };
}

async function createDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `sy_bench_${randomBytes(6).toString('hex')}`;
  await queryOnce(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    await queryOnce(serverUrl, `drop database if exists ${name} with (force)`);
  };
  return { url: url.toString(), drop };
}

/** `npm run migrate`, exactly as an operator runs it once per release. */
async function migrate(env: Record<string, string>, logFile: string): Promise<void> {
  const child = startChild({ args: [MAIN, 'migrate'], env, cores: null, logFile });
  const code = await new Promise<number | null>((resolve) => child.child.once('exit', resolve));
  if (code !== 0) throw new Error(`migrate failed (exit ${code}); see ${logFile}`);
}

async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  } finally {
    await client.close();
  }
}

export async function prepareStorage(options: BenchOptions, logFile: string): Promise<BenchStorage> {
  const env = secrets();
  const cleanups: Array<() => Promise<void>> = [];
  const parts: string[] = [];
  if (options.databaseUrl !== undefined) {
    const database = await createDatabase(options.databaseUrl);
    env.DATABASE_URL = database.url;
    if (!options.keepDatabase) cleanups.push(database.drop);
    await migrate(env, logFile);
    parts.push(`postgres (fresh database ${new URL(database.url).pathname.slice(1)})`);
  } else {
    const dataDir = await mkdtemp(join(tmpdir(), 'sy-bench-'));
    env.DATA_DIR = dataDir;
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    parts.push('embedded PGlite');
  }
  if (options.redisUrl !== undefined) {
    const prefix = `sy-bench-${randomBytes(4).toString('hex')}:`;
    env.REDIS_URL = options.redisUrl;
    env.REDIS_KEY_PREFIX = prefix;
    const redisUrl = options.redisUrl;
    cleanups.push(() => deleteRedisKeys(redisUrl, prefix));
    parts.push('redis');
  } else {
    parts.push('in-process cache store');
  }
  return {
    description: parts.join(' + '),
    env,
    masterKey: env.MASTER_KEY,
    hasRedis: options.redisUrl !== undefined,
    cleanup: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    },
  };
}
