import { ConfigurationSnapshot } from '../cache/configuration-snapshot.ts';
import type { DeploymentRow } from '../deployments/deployment.ts';
import { DeploymentDirectory } from '../deployments/deployment-directory.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { CachedKeyResolver } from '../keys/cached-key-resolver.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import { RouterSettingsStore } from '../router/router-settings.ts';
import type { Runtime } from '../server/runtime.ts';
import { UpstreamClient } from '../upstream/upstream-client.ts';

/** What every feature reads and nothing owns: the directories kept current, and the upstream client. */
export interface Resources {
  keys: CachedKeyResolver;
  directory: DeploymentDirectory;
  routerSettings: RouterSettingsStore;
  client: UpstreamClient;
  /** The database and cache store probes; the watchers and the upstream pools closed at shutdown. */
  module: FeatureModule;
}

/**
 * Loads the deployments and router settings, and follows every replica's changes to them and to
 * keys. When Postgres did not answer at start nothing is loaded here: the composition root loads
 * the cache store's copy (gateway/database-return.ts).
 */
export async function openResources(runtime: Runtime, logger: Logger): Promise<Resources> {
  const { database, cache, keyring, config } = runtime;
  const fromDatabase = !runtime.databaseUnreachableAtStart;
  const keys = new CachedKeyResolver(database.db, config.keyCacheTtlMs);
  const stopKeys = await keys.listen(cache);
  const saved = new ConfigurationSnapshot<DeploymentRow[]>(cache, 'deployments', logger);
  const directory = new DeploymentDirectory(database.db, keyring, logger, saved);
  if (fromDatabase) await directory.load();
  const stopDirectory = await directory.watch(cache);
  const routerSettings = new RouterSettingsStore(database.db, cache, logger);
  // The saved copy when Postgres is unreachable, before the upstream client reads its connect timeout.
  if (fromDatabase) await routerSettings.load();
  else await routerSettings.loadSaved();
  const stopRouterSettings = await routerSettings.watch();
  // The connect timeout of the router settings in force at start-up: undici fixes it per pool.
  const client = new UpstreamClient(
    routerSettings.current().timeouts.connectMs,
    config.upstreamMaxAnswerBytes,
  );
  const stopWatchers = async () => {
    await stopKeys();
    await stopDirectory();
    await stopRouterSettings();
  };
  return {
    keys,
    directory,
    routerSettings,
    client,
    module: {
      name: 'resources',
      probes: [
        { name: 'database', check: () => database.ping() },
        { name: 'cache', check: () => cache.ping() },
      ],
      shutdown: [
        { phase: 'flush', name: 'config watchers', run: stopWatchers },
        { phase: 'flush', name: 'upstream pools', run: () => client.close() },
      ],
    },
  };
}
