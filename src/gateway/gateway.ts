import type { FastifyInstance } from 'fastify';
import { createAlerts } from '../alerts/index.ts';
import { adminModules } from '../api/admin/index.ts';
import { v1Module } from '../api/v1/index.ts';
import { createAudit } from '../audit/index.ts';
import { Authenticator } from '../auth/authenticator.ts';
import { MasterKey } from '../auth/credentials.ts';
import type { CacheStore } from '../cache/cache-store.ts';
import type { Config } from '../config.ts';
import { DeploymentDirectory } from '../deployments/deployment-directory.ts';
import { createExtensions } from '../extensions/index.ts';
import { CachedKeyResolver } from '../keys/cached-key-resolver.ts';
import { KeyInfoReader } from '../keys/key-info.ts';
import { createLimits } from '../limits/index.ts';
import { InferencePipeline } from '../pipeline/pipeline.ts';
import { createPreflightStages } from '../pipeline/stages/preflight.ts';
import { createRecords } from '../records/index.ts';
import { captureResponse } from '../records/response-capture.ts';
import { ResponseCache } from '../response-cache/response-cache.ts';
import { createResponsesState } from '../responses-state/index.ts';
import { Router } from '../router/router.ts';
import { RouterSettingsStore } from '../router/router-settings.ts';
import { buildApp, type RegisteredRoute, type RouteModule } from '../server/app.ts';
import { registerMetricsRoute } from '../server/metrics-route.ts';
import { OpenApiRegistry } from '../server/openapi.ts';
import type { ReadinessProbe } from '../server/readiness.ts';
import { openRuntime, type Runtime } from '../server/runtime.ts';
import type { Logger } from '../telemetry/logger.ts';
import { Telemetry } from '../telemetry/telemetry.ts';
import { UpstreamClient } from '../upstream/upstream-client.ts';

export interface Gateway {
  app: FastifyInstance;
  runtime: Runtime;
  /** Every route served, for the OpenAPI coverage test. */
  routes: readonly RegisteredRoute[];
  /** Starts listening; resolves with the bound address (`host:port`). */
  listen(): Promise<string>;
  shutdown(): Promise<void>;
}

/** What a test may put in place of the real thing. */
export interface GatewayOverrides {
  /** The clock budget periods are read on (ms since the epoch); Date.now by default. */
  now?(): number;
}

/** The composition root: opens the runtime, builds every feature, assembles the HTTP app. */
export async function buildGateway(
  config: Config,
  logger: Logger,
  overrides: GatewayOverrides = {},
): Promise<Gateway> {
  const runtime = await openRuntime(config, logger);
  const { database, cache, keyring, lifecycle } = runtime;
  // First registered, so last of the flush phase: the records and spend go before any alert.
  const alerts = createAlerts(runtime.config, logger);
  if (alerts !== null)
    lifecycle.onShutdown('flush', 'alert webhook', (remainingMs) => alerts.close(remainingMs));

  const keys = new CachedKeyResolver(database.db, runtime.config.keyCacheTtlMs);
  const stopKeys = await keys.listen(cache);
  const directory = new DeploymentDirectory(database.db, keyring, logger);
  await directory.load();
  const stopDirectory = await directory.watch(cache);
  const routerSettings = new RouterSettingsStore(database.db, cache, logger);
  await routerSettings.load();
  const stopRouterSettings = await routerSettings.watch();
  // The connect timeout of the router settings in force at start-up: undici fixes it per pool.
  const client = new UpstreamClient(
    routerSettings.current().timeouts.connectMs,
    runtime.config.upstreamMaxAnswerBytes,
  );
  lifecycle.onShutdown('flush', 'config watchers', async () => {
    await stopKeys();
    await stopDirectory();
    await stopRouterSettings();
  });
  lifecycle.onShutdown('flush', 'upstream pools', () => client.close());

  const limits = createLimits({
    cache,
    db: database.db,
    spendDb: database.background,
    directory,
    dependencyTimeoutMs: runtime.config.dependencyTimeoutMs,
    now: overrides.now,
  });
  lifecycle.onShutdown('flush', 'limits and spend', (remainingMs) => limits.close(remainingMs));
  const records = createRecords({
    config: runtime.config,
    database,
    keyring,
    logger,
    sampling: { fraction: runtime.config.observabilityPayloadSampleRate },
  });
  lifecycle.onShutdown('flush', 'request records', (remainingMs) => records.flush(remainingMs));
  const audit = createAudit({
    config: runtime.config,
    background: database.background,
    maintenance: database.background,
    logger,
  });
  lifecycle.onShutdown('flush', 'audit trail', (remainingMs) => audit.flush(remainingMs));
  const telemetry = await Telemetry.open({
    enabled: runtime.config.otelEnabled,
    endpoint: runtime.config.otelExporterOtlpEndpoint,
    logPayloads: runtime.config.otelLogPayloads,
    logger,
    isConfiguredModel: (publicModel) => directory.deploymentsOf(publicModel).length > 0,
  });
  lifecycle.onShutdown('telemetry', 'opentelemetry', () => telemetry.shutdown());

  const router = new Router({
    directory,
    client,
    cache,
    settings: routerSettings,
    secrets: runtime.config.masterKey === undefined ? [] : [runtime.config.masterKey],
  });
  lifecycle.onShutdown('flush', 'router cooldown mirror', () => router.close());
  const extensions = await createExtensions({
    config: runtime.config,
    db: database.db,
    cache,
    keyring,
    logger,
  });
  lifecycle.onShutdown('flush', 'extensions', () => extensions.close());
  const responseCache = createResponseCache(runtime.config, cache, logger);
  const responsesState = createResponsesState({ config: runtime.config, database, keyring, logger });
  lifecycle.onShutdown('flush', 'response state gc', () => responsesState.stop());
  // DESIGN.md section 4, in order: pre-flight per model, the call stages once, routing (with
  // its fallbacks), the answer stages on the answer, the observers once the call is over.
  const pipeline = new InferencePipeline({
    // Conversations are inlined before any check reads the body (DESIGN.md section 5).
    preflight: [responsesState.expand, ...createPreflightStages({ directory })],
    call:
      responseCache === null
        ? [limits.stage, extensions.beforeUpstream]
        : [responseCache.prefetch, limits.stage, extensions.beforeUpstream, responseCache.stage],
    route: router.route,
    fallbacks: router.fallbacks,
    // The response cache keeps the upstream's answer as the extensions left it; the stored
    // response is the one the client gets (the gateway's id), cache hits included.
    answer:
      responseCache === null
        ? [extensions.afterUpstream, responsesState.answer, captureResponse]
        : [extensions.afterUpstream, responseCache.store, responsesState.answer, captureResponse],
    observers: [limits.observer, ...records.observers, telemetry],
  });
  const modules: RouteModule[] = [
    v1Module({
      pipeline,
      directory,
      keyInfo: new KeyInfoReader({
        db: database.db,
        cache,
        pendingSpendCents: limits.pendingSpendCents,
        now: overrides.now,
      }),
      bodyLimitBytes: runtime.config.bodyLimitBytes,
      countTokens: { client, settings: routerSettings },
      upstreamErrorMessages: runtime.config.upstreamErrorMessages,
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
      variant: runtime.config.variant,
      auditLog: audit.log,
      extensions: extensions.admin,
      now: overrides.now,
    }),
  ];
  const probes: ReadinessProbe[] = [
    { name: 'database', check: () => database.ping() },
    { name: 'cache', check: () => cache.ping() },
    extensions.probe,
  ];
  const routes: RegisteredRoute[] = [];
  const authenticator = new Authenticator(new MasterKey(runtime.config.masterKey ?? ''), keys);
  const docs = new OpenApiRegistry();
  const app = buildApp({
    routes,
    variant: runtime.config.variant,
    logger,
    bodyLimitBytes: runtime.config.bodyLimitBytes,
    maxBodyBytesInFlight: runtime.config.maxBodyBytesInFlight,
    http: runtime.config.http,
    dependencyTimeoutMs: runtime.config.dependencyTimeoutMs,
    authenticator,
    probes,
    docs,
    modules,
    upstreamErrorMessages: runtime.config.upstreamErrorMessages,
    corsOrigins: runtime.config.corsOrigins,
  });
  registerMetricsRoute(app, docs, authenticator, telemetry);
  records.start();
  audit.start();
  responsesState.start();
  lifecycle.onShutdown('drain', 'http server', (remainingMs) =>
    drain(app, remainingMs - flushReserveMs(runtime.config.shutdownTimeoutMs)),
  );

  return {
    app,
    runtime,
    routes,
    listen: async () => {
      // A lone worker binds the port itself: under node:cluster's default the primary would hold
      // the listening socket and keep accepting connections while the worker drains on SIGTERM,
      // and would pass every new connection to the worker over IPC.
      const exclusive = runtime.config.workers === 1;
      await app.listen({ port: runtime.config.port, host: runtime.config.host, exclusive });
      const address = app.server.address();
      return typeof address === 'string' || address === null
        ? String(address)
        : `${address.address}:${address.port}`;
    },
    shutdown: () => lifecycle.shutdown(runtime.config.shutdownTimeoutMs),
  };
}

/** The response cache, or null when RESPONSE_CACHE_TTL_MS is 0: the pipeline then has no cache stage at all. */
function createResponseCache(config: Config, cache: CacheStore, logger: Logger): ResponseCache | null {
  if (config.responseCacheTtlMs === 0) return null;
  return new ResponseCache({
    cache,
    ttlMs: config.responseCacheTtlMs,
    maxEntryBytes: config.responseCacheMaxEntryBytes,
    logger,
  });
}

/**
 * The part of SHUTDOWN_TIMEOUT_MS the drain leaves to writing the queued records and spend (and
 * closing): a quarter, at most 5 s. With the database up a flush takes milliseconds; with it
 * down this is how long the flush retries before it logs what is lost.
 */
function flushReserveMs(shutdownTimeoutMs: number): number {
  return Math.min(5_000, shutdownTimeoutMs / 4);
}

/** How often a drain closes the keep-alive connections that went idle since it began. */
const DRAIN_IDLE_CLOSE_INTERVAL_MS = 100;

/**
 * Stops accepting and waits for in-flight requests (streams included), at most `timeoutMs`. The
 * close ends the connections idle at that moment; one whose call was in flight stays open once
 * answered, idle, until the client's next request or the keep-alive timeout, and held every
 * drain for all of `timeoutMs`: such connections are closed as they go idle.
 */
async function drain(app: FastifyInstance, timeoutMs: number): Promise<void> {
  const timer = setTimeout(() => app.server.closeAllConnections(), Math.max(0, timeoutMs));
  const idleCloser = setInterval(() => app.server.closeIdleConnections(), DRAIN_IDLE_CLOSE_INTERVAL_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
    clearInterval(idleCloser);
  }
}
