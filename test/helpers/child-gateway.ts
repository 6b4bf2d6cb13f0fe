import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { spawnMain, waitForListening } from './child.ts';
import { createTestDatabase, migrateTestDatabase, type TestDatabase } from './database.ts';
import { testSecrets } from './secrets.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

export interface ChildGatewayOptions {
  /** Migrated here, through its own URL, before the gateway starts. */
  database: TestDatabase;
  /** The URL the gateway uses (a TCP proxy in front of `database`); `database.url` by default. */
  databaseUrl?: string;
  env?: Record<string, string>;
}

export interface ChildGateway {
  url: string;
  masterKey: string;
  child: ChildProcess;
  /** Everything the process wrote, stdout and stderr. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within 15 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * A gateway in its own process (`node src/main.ts serve`), for tests that break the database
 * under it: what such a fault does to the process (a crash, a hang, a lost flush) is what they
 * assert, and it must not take the test runner with it.
 */
export async function startChildGateway(options: ChildGatewayOptions): Promise<ChildGateway> {
  await migrateTestDatabase(options.database.url);
  const secrets = testSecrets();
  const child = spawnMain(['serve'], {
    ...secrets,
    DATABASE_URL: options.databaseUrl ?? options.database.url,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...options.env,
  });
  const port = await waitForListening(child);
  return {
    url: `http://127.0.0.1:${port}`,
    masterKey: secrets.MASTER_KEY,
    child,
    output: child.output,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const [code] = await exited;
      clearTimeout(killer);
      return code as number | null;
    },
  };
}

export interface ProxiedChildGateway {
  database: TestDatabase;
  /** Between the gateway and Postgres: cut, stall or blackhole it. */
  proxy: TcpProxy;
  gw: ChildGateway;
}

/** A fresh database, a TCP proxy in front of it, and a child gateway that reaches it through the proxy. */
export async function startChildGatewayBehindProxy(
  env: Record<string, string> = {},
): Promise<ProxiedChildGateway> {
  const database = await createTestDatabase();
  const target = new URL(database.url);
  const proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) });
  const proxied = new URL(database.url);
  proxied.port = String(proxy.port);
  const gw = await startChildGateway({ database, databaseUrl: proxied.toString(), env });
  return { database, proxy, gw };
}
