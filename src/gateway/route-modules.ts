import { adminModules } from '../api/admin/index.ts';
import { v1Module } from '../api/v1/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { KeyInfoReader } from '../keys/key-info.ts';
import type { InferencePipeline } from '../pipeline/pipeline.ts';
import type { RouteModule } from '../server/app.ts';
import type { Runtime } from '../server/runtime.ts';
import type { Features } from './features.ts';
import type { GatewayOverrides } from './gateway.ts';
import type { Resources } from './resources.ts';

/** `/v1` over the pipeline, and every admin module over the features' admin objects. */
export function routeModules(
  runtime: Runtime,
  resources: Resources,
  features: Features,
  pipeline: InferencePipeline,
  logger: Logger,
  overrides: GatewayOverrides,
): RouteModule[] {
  const { config, database, cache, keyring } = runtime;
  const { directory, keys, routerSettings, client } = resources;
  const { limits, responsesState } = features;
  return [
    v1Module({
      pipeline,
      directory,
      keyInfo: new KeyInfoReader({
        db: database.db,
        cache,
        pendingSpendCents: limits.pendingSpendCents,
        now: overrides.now,
      }),
      bodyLimitBytes: config.bodyLimitBytes,
      countTokens: { client, settings: routerSettings },
      upstreamErrorMessages: config.upstreamErrorMessages,
      responses: { store: responsesState.store, compactor: responsesState.compactor },
    }),
    ...adminModules({
      db: database.db,
      cache,
      keyring,
      logger,
      directory,
      keys,
      routerSettings,
      cooldownRemainingMs: (deploymentId) => features.router.cooldownRemainingMs(deploymentId),
      variant: config.variant,
      auditLog: features.audit.log,
      extensions: features.extensions.admin,
      now: overrides.now,
    }),
  ];
}
