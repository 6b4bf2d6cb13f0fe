import { createAlerts } from '../alerts/index.ts';
import { type Audit, createAudit } from '../audit/index.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { createExtensions, type Extensions } from '../extensions/index.ts';
import { createLimits, type Limits } from '../limits/index.ts';
import type { FeatureModule } from '../pipeline/feature-module.ts';
import { createRecords, type Records } from '../records/index.ts';
import { createResponseCache } from '../response-cache/index.ts';
import { createResponsesState, type ResponsesState } from '../responses-state/index.ts';
import { Router } from '../router/router.ts';
import type { Runtime } from '../server/runtime.ts';
import { Telemetry } from '../telemetry/telemetry.ts';
import type { GatewayOverrides } from './gateway.ts';
import type { Resources } from './resources.ts';

/** Every feature, built once from the runtime and the resources. */
export interface Features {
  alerts: FeatureModule;
  limits: Limits;
  responseCache: FeatureModule;
  extensions: Extensions;
  router: Router;
  responsesState: ResponsesState;
  records: Records;
  audit: Audit;
  telemetry: Telemetry;
}

export async function openFeatures(
  runtime: Runtime,
  resources: Resources,
  logger: Logger,
  overrides: GatewayOverrides,
): Promise<Features> {
  const { config, database, cache, keyring } = runtime;
  const { directory, client, routerSettings } = resources;
  return {
    alerts: createAlerts(config, logger),
    limits: createLimits({
      cache,
      db: database.db,
      directory,
      dependencyTimeoutMs: config.dependencyTimeoutMs,
      now: overrides.now,
    }),
    responseCache: createResponseCache(config, cache, logger),
    extensions: await createExtensions({
      config,
      db: database.db,
      cache,
      keyring,
      logger,
      databaseUnreachable: runtime.databaseUnreachableAtStart,
    }),
    router: new Router({
      directory,
      client,
      cache,
      settings: routerSettings,
      secrets: config.masterKey === undefined ? [] : [config.masterKey],
    }),
    responsesState: createResponsesState({ config, database, keyring, logger }),
    records: createRecords({
      config,
      database,
      keyring,
      logger,
      sampling: { fraction: config.observabilityPayloadSampleRate },
    }),
    audit: createAudit({ config, background: database.background, maintenance: database.background, logger }),
    telemetry: await Telemetry.open({
      enabled: config.otelEnabled,
      endpoint: config.otelExporterOtlpEndpoint,
      logPayloads: config.otelLogPayloads,
      logger,
      isConfiguredModel: (publicModel) => directory.deploymentsOf(publicModel).length > 0,
    }),
  };
}
