import type { CacheStore } from '../../cache/cache-store.ts';
import type { Keyring } from '../../crypto/index.ts';
import { catalogFacts } from '../../deployments/catalog-facts.ts';
import { DeploymentAdmin } from '../../deployments/deployment-admin.ts';
import type { DeploymentDirectory } from '../../deployments/deployment-directory.ts';
import type { CatalogLookup } from '../../deployments/deployment-resolver.ts';
import type { CachedKeyResolver } from '../../keys/cached-key-resolver.ts';
import { VirtualKeyAdmin } from '../../keys/virtual-key-admin.ts';
import type { RouterSettingsStore } from '../../router/router-settings.ts';
import type { RouteModule } from '../../server/app.ts';
import type { Db } from '../../store/database.ts';
import { TeamAdmin } from '../../teams/team-admin.ts';
import type { Logger } from '../../telemetry/logger.ts';
import { registerDeploymentRoutes } from './deployment-routes.ts';
import { registerRouterSettingsRoutes } from './router-settings-routes.ts';
import { registerTeamRoutes } from './team-routes.ts';
import { registerVirtualKeyRoutes } from './virtual-key-routes.ts';

export interface AdminDeps {
  db: Db;
  cache: CacheStore;
  keyring: Keyring;
  logger: Logger;
  directory: DeploymentDirectory;
  keys: CachedKeyResolver;
  routerSettings: RouterSettingsStore;
  /** Defaults to the model catalog. */
  catalog?: CatalogLookup;
  /** The clock reset-spend starts a budget period at; Date.now by default. */
  now?(): number;
}

/** The admin surface's modules: deployments, virtual keys, teams, router settings (master key only). */
export function adminModules(deps: AdminDeps): RouteModule[] {
  const deployments = new DeploymentAdmin({ ...deps, catalog: deps.catalog ?? catalogFacts });
  const keys = new VirtualKeyAdmin({ ...deps, resolver: deps.keys });
  const teams = new TeamAdmin({ ...deps, resolver: deps.keys });
  return [
    {
      surface: 'admin',
      register: (scope, docs) => {
        registerDeploymentRoutes(scope, docs, deployments);
        registerVirtualKeyRoutes(scope, docs, keys);
        registerTeamRoutes(scope, docs, teams);
        registerRouterSettingsRoutes(scope, docs, deps.routerSettings);
      },
    },
  ];
}
