import { join } from 'node:path';
import type { CacheStore } from '../cache/cache-store.ts';
import { createCacheStore } from '../cache/create-cache-store.ts';
import type { Config } from '../config.ts';
import { type Keyring, keyringFromCredentialsKey, keyringFromJson } from '../crypto/index.ts';
import { type Logger, resolveLogFormat } from '../diagnostics/logger.ts';
import { announceGeneratedMasterKey, withEmbeddedSecrets } from '../embedded-secrets.ts';
import {
  BACKGROUND_STATEMENT_TIMEOUT_MS,
  type Database,
  DatabaseConnectError,
  openDatabase,
} from '../store/database.ts';
import { isDatabaseUnavailable, SchemaBehindError } from '../store/database-errors.ts';
import { assertSchemaCurrent, migrate } from '../store/migrate.ts';
import { Lifecycle } from './lifecycle.ts';
import { installProcessGuards } from './process-guards.ts';

/** The dependencies every feature is built on, opened in order and closed in reverse. */
export interface Runtime {
  config: Config;
  logger: Logger;
  database: Database;
  cache: CacheStore;
  keyring: Keyring;
  lifecycle: Lifecycle;
  /** True when running on the embedded PGlite default. */
  embedded: boolean;
  /**
   * Postgres did not answer at start and the process started anyway (`serve` only): the gateway
   * serves from the cache store's copy and loads when it answers (gateway/database-return.ts).
   */
  databaseUnreachableAtStart: boolean;
  /** What the start-up lines say of where state and secrets live (never a secret or a password). */
  facts: RuntimeFacts;
}

export interface RuntimeFacts {
  database: string;
  cacheStore: string;
  masterKey: string;
}

/**
 * One connection in embedded mode. pglite-socket multiplexes every client onto one PGlite
 * session and keeps only transactions whole, so two connections' unnamed prepared statements could
 * replace each other between one statement's protocol messages. A single connection is exactly a
 * real Postgres connection's protocol; the hot path does not query the database.
 */
const EMBEDDED_POOL_MAX = 1;

export function keyringFor(config: Config): Keyring {
  if (config.variant === 'a') return keyringFromCredentialsKey(config.credentialsEncryptionKey ?? '');
  return keyringFromJson(config.encryptionKeyring ?? '', config.activeEncryptionKeyId ?? '');
}

/**
 * Embedded mode: secrets under the data directory, PGlite served locally, migrated automatically.
 * PGlite is imported here only: a gateway on a real Postgres would otherwise carry its modules
 * for nothing (docs/decisions/hot-path.md, Modules loaded only where used).
 */
async function openEmbedded(
  config: Config,
  logger: Logger,
  lifecycle: Lifecycle,
): Promise<{ config: Config; masterKey: string }> {
  const { embeddedDatabaseExists, startEmbeddedPostgres } = await import('../store/embedded-postgres.ts');
  // PGlite's first start creates the database (initdb, in WebAssembly): the slowest step of a first run.
  const creating = !embeddedDatabaseExists(config.dataDir);
  if (creating) {
    logger.info(
      { dataDir: config.dataDir },
      'embedded database: first start, creating it (takes several seconds)',
    );
  }
  const startedMs = performance.now();
  // First, as it locks DATA_DIR: a second gateway on the directory stops before touching it.
  const embedded = await startEmbeddedPostgres(config.dataDir, EMBEDDED_POOL_MAX + 2);
  if (creating) {
    const seconds = ((performance.now() - startedMs) / 1000).toFixed(1);
    logger.info({ seconds: Number(seconds) }, `embedded database: created in ${seconds} s`);
  }
  lifecycle.onShutdown('close-database', 'embedded postgres', () => embedded.close());
  const secrets = await withEmbeddedSecrets(config);
  // The key itself only to a person at a terminal: a JSON log line must never hold a secret.
  if (resolveLogFormat(config.logFormat) === 'pretty') announceGeneratedMasterKey(secrets);
  logger.info({ file: secrets.file }, 'embedded mode: secrets kept under the data directory');
  const masterKey =
    config.masterKey !== undefined
      ? 'from MASTER_KEY'
      : secrets.generatedMasterKey !== undefined
        ? `generated on this start, kept in ${secrets.file}`
        : `kept in ${secrets.file}`;
  return { config: { ...secrets.config, databaseUrl: embedded.url }, masterKey };
}

/** Where a URL points, without its credentials: `host:port/database`. */
function place(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

/**
 * The first statement on DATABASE_URL: a failure to connect names the variable. With
 * `startWithout` (serve), a database that cannot be reached at all (refused, reset, timed out) is
 * said and the start goes on: true then. One that answers with an error (no such database, bad
 * password, schema behind) still stops the start.
 */
async function assertSchemaReachable(
  database: Database,
  url: string,
  logger: Logger,
  startWithout: boolean,
): Promise<boolean> {
  try {
    // A command (apply, export, the key commands) works on the background view, bound per
    // statement; its first statement is bound the same way, not by the request path's
    // DEPENDENCY_TIMEOUT_MS, which a loaded machine's first connection can exceed.
    await assertSchemaCurrent(startWithout ? database.db : database.background);
    return false;
  } catch (error) {
    if (error instanceof SchemaBehindError) throw error;
    if (!startWithout || !isDatabaseUnavailable(error)) throw new DatabaseConnectError(url, error);
    logger.warn(
      { database: place(url), reason: (error as Error).message },
      'database unreachable at start-up: starting not ready; serving the master key and the configuration copy in the cache store until it answers',
    );
    return true;
  }
}

/**
 * Says at start-up that the cache store is unreachable: the gateway starts anyway (not ready),
 * its subscriptions wait, and calls that need no shared state are served (DESIGN.md section 6).
 */
async function reportCacheAtStart(cache: CacheStore, logger: Logger): Promise<void> {
  try {
    await cache.ping();
  } catch {
    logger.warn(
      { store: cache.kind },
      'cache store unreachable at start-up: starting not ready; subscriptions wait for it and calls needing shared state answer 503 until it answers',
    );
  }
}

export interface OpenOptions {
  /** `serve`: start while Postgres is unreachable (not ready) instead of stopping. */
  startWithoutDatabase?: boolean;
}

export async function openRuntime(
  initial: Config,
  logger: Logger,
  options: OpenOptions = {},
): Promise<Runtime> {
  installProcessGuards(logger);
  const lifecycle = new Lifecycle(logger);
  const embedded = initial.databaseUrl === undefined;
  const opened = embedded
    ? await openEmbedded(initial, logger, lifecycle)
    : { config: initial, masterKey: 'from MASTER_KEY' };
  const { config } = opened;
  const keyring = keyringFor(config);
  const database = openDatabase({
    url: config.databaseUrl ?? '',
    poolMax: embedded ? EMBEDDED_POOL_MAX : config.dbPoolMax,
    timeoutMs: config.dependencyTimeoutMs,
    // A command works on the background view: its connections are bound as its statements are.
    connectTimeoutMs: options.startWithoutDatabase === true ? undefined : BACKGROUND_STATEMENT_TIMEOUT_MS,
  });
  lifecycle.onShutdown('close-database', 'database pool', () => database.close());
  let databaseUnreachableAtStart = false;
  if (embedded) {
    await migrate(database.background, (migration, state) => {
      if (state === 'applying')
        logger.info(
          { version: migration.version },
          `embedded database: applying migration ${migration.version} ${migration.name}`,
        );
    });
  } else {
    databaseUnreachableAtStart = await assertSchemaReachable(
      database,
      config.databaseUrl ?? '',
      logger,
      options.startWithoutDatabase === true,
    );
  }
  const cache = await createCacheStore({
    redisUrl: config.redisUrl,
    redisClusterNodes: config.redisClusterNodes,
    keyPrefix: config.redisKeyPrefix,
    commandTimeoutMs: config.dependencyTimeoutMs,
  });
  await reportCacheAtStart(cache, logger);
  lifecycle.onShutdown('close-cache', 'cache store', () => cache.close());
  const facts: RuntimeFacts = {
    database: embedded
      ? `embedded PGlite in ${join(config.dataDir, 'db')}`
      : `Postgres at ${place(config.databaseUrl ?? '')}`,
    cacheStore: config.redisUrl === undefined ? 'in-process' : `Redis at ${place(config.redisUrl)}`,
    masterKey: opened.masterKey,
  };
  return { config, logger, database, cache, keyring, lifecycle, embedded, databaseUnreachableAtStart, facts };
}
