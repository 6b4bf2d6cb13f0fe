import type { FastifyInstance } from 'fastify';
import { Authenticator } from '../auth/authenticator.ts';
import { MasterKey } from '../auth/credentials.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../diagnostics/logger.ts';
import { rememberProcessSecret } from '../diagnostics/scrub-secrets.ts';
import { assemblePipeline, type FeatureModule } from '../pipeline/feature-module.ts';
import { InferencePipeline } from '../pipeline/pipeline.ts';
import { createPreflightStages } from '../pipeline/stages/preflight.ts';
import { buildApp, type RegisteredRoute } from '../server/app.ts';
import { registerConsoleRoute } from '../server/console-route.ts';
import { registerMetricsRoute } from '../server/metrics-route.ts';
import { OpenApiRegistry } from '../server/openapi.ts';
import { openRuntime, type Runtime } from '../server/runtime.ts';
import { databaseReturn } from './database-return.ts';
import { openFeatures } from './features.ts';
import { openResources } from './resources.ts';
import { routeModules } from './route-modules.ts';

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
  /** Where the built console is read from; `dist/console/` by default (server/console-route.ts). */
  consoleDir?: string;
}

/**
 * The composition root: opens the runtime, builds every feature, lists their modules in
 * DESIGN.md section 4 order, assembles the pipeline and the HTTP app from them.
 */
export async function buildGateway(
  config: Config,
  logger: Logger,
  overrides: GatewayOverrides = {},
): Promise<Gateway> {
  // Postgres unreachable at start: the process starts not ready (gateway/database-return.ts).
  const runtime = await openRuntime(config, logger, { startWithoutDatabase: true });
  // Before the directories load, so this process serves the file's configuration from its first
  // call; without Postgres it is applied when the database answers.
  const { configFile } = runtime.config;
  if (configFile !== undefined && !runtime.databaseUnreachableAtStart) {
    // Imported only with a CONFIG_FILE: the file's reader, planner and YAML parser are otherwise
    // never needed by a serving process (docs/decisions/hot-path.md, Modules loaded only where used).
    const { applyAtStart } = await import('../declarative/apply-at-start.ts');
    await applyAtStart(runtime, configFile, logger);
  }
  // A fresh process's first burst would otherwise queue behind the pool's connections being made,
  // and its calls run out of DEPENDENCY_TIMEOUT_MS waiting (test/foundation/pool-warm.test.ts).
  if (!runtime.embedded && !runtime.databaseUnreachableAtStart)
    await runtime.database.warm(runtime.config.dbPoolMax);
  const resources = await openResources(runtime, logger);
  const features = await openFeatures(runtime, resources, logger, overrides);
  const databaseWait = await databaseReturn(runtime, resources, features, logger);
  // Each module puts its stages in their places (pipeline/feature-module.ts); the observers run,
  // and the shutdown steps close in reverse, in this order: the alerts close last.
  const modules: readonly FeatureModule[] = [
    features.alerts,
    resources.module,
    databaseWait,
    features.limits.module,
    features.responseCache,
    features.extensions.module,
    features.router.module,
    features.responsesState.module,
    features.records.module,
    features.audit.module,
    features.telemetry.module,
  ];
  const pipeline = new InferencePipeline({
    ...assemblePipeline(modules, createPreflightStages({ directory: resources.directory })),
    route: features.router.route,
    fallbacks: features.router.fallbacks,
  });
  const routes: RegisteredRoute[] = [];
  rememberProcessSecret(runtime.config.masterKey);
  const authenticator = new Authenticator(new MasterKey(runtime.config.masterKey ?? ''), resources.keys);
  const docs = new OpenApiRegistry();
  const app = buildApp({
    ...httpSettings(runtime.config),
    routes,
    logger,
    authenticator,
    probes: modules.flatMap((module) => module.probes ?? []),
    docs,
    modules: routeModules(runtime, resources, features, pipeline, logger, overrides),
  });
  registerMetricsRoute(app, docs, authenticator, features.telemetry);
  await registerConsoleRoute(app, docs, overrides.consoleDir);
  for (const step of modules.flatMap((module) => module.shutdown ?? [])) {
    runtime.lifecycle.onShutdown(step.phase, step.name, step.run);
  }
  for (const module of modules) module.start?.();
  runtime.lifecycle.onShutdown('drain', 'http server', (remainingMs) =>
    drain(app, remainingMs - flushReserveMs(runtime.config.shutdownTimeoutMs)),
  );
  return {
    app,
    runtime,
    routes,
    listen: () => listen(app, runtime.config),
    shutdown: () => runtime.lifecycle.shutdown(runtime.config.shutdownTimeoutMs),
  };
}

/** The HTTP app's settings from the configuration. */
function httpSettings(config: Config) {
  return {
    variant: config.variant,
    bodyLimitBytes: config.bodyLimitBytes,
    maxBodyBytesInFlight: config.maxBodyBytesInFlight,
    http: config.http,
    dependencyTimeoutMs: config.dependencyTimeoutMs,
    upstreamErrorMessages: config.upstreamErrorMessages,
    corsOrigins: config.corsOrigins,
  };
}

/** Starts listening; resolves with the bound address (`host:port`). */
async function listen(app: FastifyInstance, config: Config): Promise<string> {
  // A lone worker binds the port itself: under node:cluster's default the primary would hold
  // the listening socket and keep accepting connections while the worker drains on SIGTERM,
  // and would pass every new connection to the worker over IPC.
  await app.listen({ port: config.port, host: config.host, exclusive: config.workers === 1 });
  const address = app.server.address();
  return typeof address === 'string' || address === null
    ? String(address)
    : `${address.address}:${address.port}`;
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
