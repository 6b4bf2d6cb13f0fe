import type { AuditLog } from '../../audit/audit-log.ts';
import type { CacheStore } from '../../cache/cache-store.ts';
import type { Variant } from '../../config.ts';
import type { Keyring } from '../../crypto/index.ts';
import { catalogFacts } from '../../deployments/catalog-facts.ts';
import { DeploymentAdmin } from '../../deployments/deployment-admin.ts';
import type { DeploymentDirectory } from '../../deployments/deployment-directory.ts';
import type { CatalogLookup } from '../../deployments/deployment-resolver.ts';
import type { Logger } from '../../diagnostics/logger.ts';
import type { ExtensionAdmin } from '../../extensions/extension-admin.ts';
import type { CachedKeyResolver } from '../../keys/cached-key-resolver.ts';
import { VirtualKeyAdmin } from '../../keys/virtual-key-admin.ts';
import type { RouterSettingsStore } from '../../router/router-settings.ts';
import type { RouteModule } from '../../server/app.ts';
import type { Db } from '../../store/database.ts';
import { TeamAdmin } from '../../teams/team-admin.ts';
import { auditModule } from './audit.ts';
import { type CooldownRemaining, registerCooldownRoute } from './cooldown-route.ts';
import { registerDeploymentRoutes } from './deployment-routes.ts';
import { registerExtensionRoutes } from './extension-routes.ts';
import { logsModule } from './logs.ts';
import { registerPayloadRoute } from './payload-route.ts';
import { registerRouterSettingsRoutes } from './router-settings-routes.ts';
import { registerStatusRoute } from './status.ts';
import { registerTeamRoutes } from './team-routes.ts';
import { usageModule } from './usage.ts';
import { registerVirtualKeyRoutes } from './virtual-key-routes.ts';

export interface AdminDeps {
  db: Db;
  cache: CacheStore;
  keyring: Keyring;
  logger: Logger;
  directory: DeploymentDirectory;
  keys: CachedKeyResolver;
  routerSettings: RouterSettingsStore;
  /** The router's view of each deployment's cooldown on this replica. */
  cooldownRemainingMs: CooldownRemaining;
  /** Variant B also serves the records: `/admin/logs`, `/admin/usage` and the payload samples. */
  variant: Variant;
  /** Where the audit module queues the admin surface's mutations. */
  auditLog: AuditLog;
  /** `/admin/extensions`: the extension runtime's admin rules. */
  extensions: ExtensionAdmin;
  /** Defaults to the model catalog. */
  catalog?: CatalogLookup;
  /** The clock reset-spend starts a budget period at; Date.now by default. */
  now?(): number;
}

/**
 * The admin surface's modules (master key only): deployments, virtual keys, teams, router
 * settings, extensions; in variant B the records (`/admin/logs`, `/admin/usage`); the audit trail
 * (`GET /admin/audit` and the mutation hooks), with the payload samples route in variant B.
 */
export function adminModules(deps: AdminDeps): RouteModule[] {
  const { db, keyring } = deps;
  const deployments = new DeploymentAdmin({ ...deps, catalog: deps.catalog ?? catalogFacts });
  const keys = new VirtualKeyAdmin({ ...deps, resolver: deps.keys });
  const teams = new TeamAdmin({ ...deps, resolver: deps.keys });
  const resources: RouteModule = {
    surface: 'admin',
    register: (scope, docs) => {
      registerCooldownRoute(scope, docs, deps.directory, deps.cooldownRemainingMs);
      registerDeploymentRoutes(scope, docs, deployments);
      registerVirtualKeyRoutes(scope, docs, keys);
      registerTeamRoutes(scope, docs, teams);
      registerRouterSettingsRoutes(scope, docs, deps.routerSettings);
      registerExtensionRoutes(scope, docs, deps.extensions);
      registerStatusRoute(scope, docs, deps.variant);
    },
  };
  if (deps.variant === 'a') return [resources, auditModule({ db, log: deps.auditLog })];
  const payloadRoute: RouteModule['register'] = (scope, docs) =>
    registerPayloadRoute(scope, docs, db, keyring);
  return [
    resources,
    logsModule(db),
    usageModule(db),
    auditModule({ db, log: deps.auditLog, extra: payloadRoute }),
  ];
}
