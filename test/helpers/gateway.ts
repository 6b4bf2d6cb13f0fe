import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/diagnostics/logger.ts';
import { buildGateway, type Gateway } from '../../src/gateway/gateway.ts';
import { createTestDatabase, migrateTestDatabase, TEST_REDIS_URL, type TestDatabase } from './database.ts';
import { testSecrets } from './secrets.ts';

export interface TestGatewayOptions {
  /** `postgres` (default): a fresh database on the local server. `embedded`: PGlite in a temp dir. */
  storage?: 'postgres' | 'embedded';
  /** Use the local Redis (default) or the in-process store. */
  redis?: boolean;
  /** Extra environment, e.g. `GATEWAY_VARIANT: 'a'`; overrides the generated secrets. */
  env?: Record<string, string>;
  /** Reuse an existing database (two gateways sharing state). */
  database?: TestDatabase;
  /** The clock budget periods are read on (ms since the epoch). */
  now?(): number;
  /** The built console to serve (a test's own build); `dist/console/` by default. */
  consoleDir?: string;
}

export interface TestGateway {
  url: string;
  masterKey: string;
  env: Record<string, string>;
  gateway: Gateway;
  database: TestDatabase | undefined;
  /** Every log line the gateway wrote, as text, for secret scans. */
  logs: string[];
  close(): Promise<void>;
}

/** Starts a real gateway in this process on port 0 against real dependencies. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const storage = options.storage ?? 'postgres';
  const ownsDatabase = storage === 'postgres' && options.database === undefined;
  const database = storage === 'postgres' ? (options.database ?? (await createTestDatabase())) : undefined;
  const dataDir = storage === 'embedded' ? await mkdtemp(join(tmpdir(), 'sy-embedded-')) : undefined;
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    REDIS_KEY_PREFIX: `sy-test-${randomBytes(4).toString('hex')}:`,
    ...testSecrets(),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    ...(options.redis === false ? {} : { REDIS_URL: TEST_REDIS_URL }),
    ...options.env,
  };
  const config = loadConfig(env);
  if (database !== undefined) await migrateTestDatabase(database.url);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const line = String(chunk);
      logs.push(line);
      // A fatal line means the process is about to exit; show why, or the test file only says it failed.
      if (line.includes('"level":"fatal"')) process.stderr.write(line);
      done();
    },
  });
  const gateway = await buildGateway(config, createLogger(config.logLevel, sink), {
    now: options.now,
    consoleDir: options.consoleDir,
  });
  const address = await gateway.listen();
  return {
    url: `http://${address}`,
    masterKey: gateway.runtime.config.masterKey ?? '',
    env,
    gateway,
    database,
    logs,
    close: async () => {
      await gateway.shutdown();
      if (ownsDatabase) await database?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
