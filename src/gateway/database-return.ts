import { ConfigFileError } from '../declarative/config-file-error.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import type { Runtime } from '../server/runtime.ts';
import { SchemaBehindError } from '../store/database-errors.ts';
import { assertSchemaCurrent } from '../store/migrate.ts';
import type { Features } from './features.ts';
import type { Resources } from './resources.ts';

/** Between two attempts to reach Postgres, doubling from the first to the last. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5_000;
/** How often a still-unreachable database is said again (each attempt is at debug level). */
const REPEAT_WARNING_MS = 30_000;

/**
 * A start while Postgres is unreachable (docs/decisions/start-without-postgres.md). The gateway
 * serves the cache store's copy of the configuration, the extensions first: without a copy of
 * them no deployment is loaded, so no call runs without the extensions the operator set. It
 * reports not ready (`configuration`), retries Postgres, and when it answers checks the schema,
 * applies CONFIG_FILE, loads everything from it and reports ready; each step is logged. A start
 * that reached Postgres gets an empty module.
 */
export async function databaseReturn(
  runtime: Runtime,
  resources: Resources,
  features: Features,
  logger: Logger,
): Promise<FeatureModule> {
  if (!runtime.databaseUnreachableAtStart) return { name: 'database-return' };
  await loadSaved(resources, features, logger);
  const state = { loaded: false, stopped: false, timer: undefined as NodeJS.Timeout | undefined };
  const attempt = async (delayMs: number, warnedAtMs: number): Promise<void> => {
    if (state.stopped) return;
    const now = Date.now();
    const loud = now - warnedAtMs >= REPEAT_WARNING_MS;
    const outcome = await reachAndLoad(runtime, resources, features, logger, loud);
    if (outcome === 'loaded') state.loaded = true;
    if (outcome !== 'retry') return;
    const next = Math.min(delayMs * 2, RETRY_MAX_MS);
    state.timer = setTimeout(() => void attempt(next, loud ? now : warnedAtMs), delayMs).unref();
  };
  return {
    name: 'database-return',
    probes: [
      {
        name: 'configuration',
        check: async () => {
          if (!state.loaded)
            throw new Error('not loaded from the database yet: serving the cache store copy');
        },
      },
    ],
    // The start-up warning was the first loud line: the next comes 30 s on.
    start: () => void attempt(RETRY_FIRST_MS, Date.now()),
    shutdown: [
      {
        phase: 'flush',
        name: 'database return',
        run: async () => {
          state.stopped = true;
          clearTimeout(state.timer);
        },
      },
    ],
  };
}

async function loadSaved(resources: Resources, features: Features, logger: Logger): Promise<void> {
  if (!(await features.extensions.loadSaved())) {
    logger.warn(
      'no copy of the extensions in the cache store: serving no model until the database answers, so that no call runs without its extensions',
    );
    return;
  }
  const deployments = await resources.directory.loadSaved();
  logger.info(
    { deployments: deployments ?? 0 },
    deployments === null
      ? 'no copy of the deployments in the cache store: serving no model until the database answers'
      : `serving the cache store copy of the configuration: ${deployments} deployment(s), router settings and extensions`,
  );
}

/**
 * One attempt: reach Postgres and check its schema (said at warn level every 30 s, else at debug),
 * then CONFIG_FILE first (as a start does) and every set from the database. `stop`: the file
 * cannot be applied; the process stays up, not ready, until it is fixed and restarted.
 */
async function reachAndLoad(
  runtime: Runtime,
  resources: Resources,
  features: Features,
  logger: Logger,
  loud: boolean,
): Promise<'loaded' | 'retry' | 'stop'> {
  try {
    await assertSchemaCurrent(runtime.database.db);
  } catch (error) {
    const say = loud ? logger.warn.bind(logger) : logger.debug.bind(logger);
    if (error instanceof SchemaBehindError) say(error.message);
    else say({ reason: (error as Error).message }, 'database still unreachable; retrying');
    return 'retry';
  }
  logger.info('database reachable: loading the configuration from it');
  try {
    const file = runtime.config.configFile;
    if (file !== undefined) {
      // Imported only with a CONFIG_FILE, as at start (gateway.ts).
      const { applyAtStart } = await import('../declarative/apply-at-start.ts');
      await applyAtStart(runtime, file, logger);
    }
    await resources.directory.load();
    await resources.routerSettings.load();
    await features.extensions.runtime.load();
  } catch (error) {
    if (error instanceof ConfigFileError) {
      logger.error({ problems: error.problems }, 'CONFIG_FILE cannot be applied; fix it and restart');
      return 'stop';
    }
    logger.warn({ err: error }, 'loading the configuration from the database failed; retrying');
    return 'retry';
  }
  logger.info('configuration loaded from the database');
  return 'loaded';
}
