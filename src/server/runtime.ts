import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CacheStore } from '../cache/cache-store.ts';
import { createCacheStore } from '../cache/create-cache-store.ts';
import type { Config } from '../config.ts';
import { type Keyring, keyringFromCredentialsKey, keyringFromJson } from '../crypto/index.ts';
import { type Logger, resolveLogFormat } from '../diagnostics/logger.ts';
import { announceGeneratedMasterKey, withEmbeddedSecrets } from '../embedded-secrets.ts';
import { type Database, DatabaseConnectError, openDatabase } from '../store/database.ts';
import { SchemaBehindError } from '../store/database-errors.ts';
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
  const { startEmbeddedPostgres } = await import('../store/embedded-postgres.ts');
  // PGlite's first start creates the database (initdb, in WebAssembly): the slowest step of a first run.
  if (!existsSync(join(config.dataDir, 'db', 'PG_VERSION'))) {
    logger.info(
      { dataDir: config.dataDir },
      'embedded database: first start, creating it (takes several seconds)',
    );
  }
  // First, as it locks DATA_DIR: a second gateway on the directory stops before touching it.
  const embedded = await startEmbeddedPostgres(config.dataDir, EMBEDDED_POOL_MAX + 2);
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

/** The first statement of a server on DATABASE_URL: a failure to connect names the variable. */
async function assertSchemaReachable(database: Database, url: string): Promise<void> {
  try {
    await assertSchemaCurrent(database.db);
  } catch (error) {
    if (error instanceof SchemaBehindError) throw error;
    throw new DatabaseConnectError(url, error);
  }
}

export async function openRuntime(initial: Config, logger: Logger): Promise<Runtime> {
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
  });
  lifecycle.onShutdown('close-database', 'database pool', () => database.close());
  if (embedded) {
    await migrate(database.background, (migration, state) => {
      if (state === 'applying')
        logger.info(
          { version: migration.version },
          `embedded database: applying migration ${migration.version} ${migration.name}`,
        );
    });
  } else await assertSchemaReachable(database, config.databaseUrl ?? '');
  const cache = await createCacheStore({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix });
  lifecycle.onShutdown('close-cache', 'cache store', () => cache.close());
  const facts: RuntimeFacts = {
    database: embedded
      ? `embedded PGlite in ${join(config.dataDir, 'db')}`
      : `Postgres at ${place(config.databaseUrl ?? '')}`,
    cacheStore: config.redisUrl === undefined ? 'in-process' : `Redis at ${place(config.redisUrl)}`,
    masterKey: opened.masterKey,
  };
  return { config, logger, database, cache, keyring, lifecycle, embedded, facts };
}
