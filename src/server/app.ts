import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Authenticator } from '../auth/authenticator.ts';
import type { CredentialSources } from '../auth/credentials.ts';
import type { Principal } from '../auth/principal.ts';
import type { CorsOrigins, HttpServerLimits, Variant } from '../config.ts';
import type { Logger } from '../diagnostics/logger.ts';
import type { ReadinessProbe } from '../diagnostics/readiness-probe.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import {
  errorHeaders,
  errorStatus,
  renderErrorBody,
  type UpstreamErrorMessages,
} from '../errors/render-error.ts';
import { createAccessLog } from '../telemetry/access-log.ts';
import { registerBodyAdmission } from './body-admission.ts';
import { createClientErrorHandler, frameworkError } from './client-errors.ts';
import { registerCors } from './cors.ts';
import { errorShapeFor, toGatewayError } from './error-response.ts';
import { registerHealthRoutes } from './health-routes.ts';
import { registerJsonBodyParser } from './json-body.ts';
import type { OpenApiRegistry } from './openapi.ts';
import { requestIdFor } from './request-id.ts';
import { deferRequestLoggers } from './request-logger.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the surface's authentication hook. */
    principal: Principal;
  }
}

/** A feature's routes under one surface; the surface's authentication hook runs before them. */
export interface RouteModule {
  surface: 'v1' | 'admin';
  register(scope: FastifyInstance, docs: OpenApiRegistry): void;
}

/** A route as fastify registered it, for checking the OpenAPI document covers every one. */
export interface RegisteredRoute {
  method: string;
  url: string;
}

export interface AppOptions {
  variant: Variant;
  logger: Logger;
  bodyLimitBytes: number;
  /** MAX_BODY_BYTES_IN_FLIGHT (body-admission.ts). */
  maxBodyBytesInFlight: number;
  http: HttpServerLimits;
  dependencyTimeoutMs: number;
  authenticator: Authenticator;
  probes: readonly ReadinessProbe[];
  docs: OpenApiRegistry;
  modules: readonly RouteModule[];
  /** Filled with every route as it is registered. */
  routes?: RegisteredRoute[];
  /** UPSTREAM_ERROR_MESSAGES (render-error.ts); `generic` when unset. */
  upstreamErrorMessages?: UpstreamErrorMessages;
  /** CORS_ORIGINS (cors.ts): enables CORS on `/v1`; undefined: none. */
  corsOrigins?: CorsOrigins;
}

function credentialSources(request: FastifyRequest): CredentialSources {
  const headers = request.headers;
  const query = request.query as Record<string, unknown> | undefined;
  return {
    authorization: headers.authorization,
    xApiKey: typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined,
    queryApiKey: typeof query?.api_key === 'string' ? query.api_key : undefined,
  };
}

/** fastify is the outer shell only, so no stage below depends on it: one error handler, one hook per surface. */
export function buildApp(options: AppOptions): FastifyInstance {
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // One access line per request is written by the onResponse hook below, with the URL redacted.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    bodyLimit: options.bodyLimitBytes,
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...serverLimits(options.http),
    clientErrorHandler: createClientErrorHandler(options.logger),
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      (reply as FastifyReply).send(renderError(frameworkError(error), request, reply));
    },
  });
  deferRequestLoggers(app.log as Logger);
  app.decorateRequest('principal', null as never);
  registerJsonBodyParser(app, options.bodyLimitBytes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) options.routes?.push({ method, url: route.url });
  });

  const accessLog = createAccessLog(options.logger);
  const CLIENT_CLOSED_REQUEST = 499;
  // One line per request: onResponse for an answer sent whole, the close of one never finished.
  const logAccess = (request: FastifyRequest, status: number, ms: number) =>
    accessLog({ requestId: request.id, method: request.method, url: request.url, status, ms });
  // The two hooks every request runs are callback hooks: an async hook costs a promise and a
  // microtask turn per request for work that never waits.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // A client that leaves before the answer ends: fastify's onResponse runs only for an answer
    // sent whole, so its access line is written here, with 499 (the status nginx gave it).
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) logAccess(request, CLIENT_CLOSED_REQUEST, reply.elapsedTime);
    });
    done();
  });
  registerBodyAdmission(app, {
    maxBytesInFlight: options.maxBodyBytesInFlight,
    bodyLimitBytes: options.bodyLimitBytes,
  });
  app.addHook('onResponse', (request, reply, done) => {
    logAccess(request, reply.statusCode, reply.elapsedTime);
    done();
  });
  const messages = options.upstreamErrorMessages ?? 'generic';
  app.setErrorHandler(async (error, request, reply) => renderError(error, request, reply, messages));
  app.setNotFoundHandler(async (request, reply) =>
    renderError(new GatewayError('not_found'), request, reply, messages),
  );

  registerHealthRoutes(app, options.docs, {
    variant: options.variant,
    probes: options.probes,
    timeoutMs: options.dependencyTimeoutMs,
  });
  app.get('/openapi.json', async () => options.docs.document());
  registerSurface(app, options, 'v1', (request) =>
    options.authenticator.inference(credentialSources(request)),
  );
  registerSurface(app, options, 'admin', async (request) =>
    options.authenticator.admin(credentialSources(request)),
  );
  return app;
}

/**
 * Node.js's own bounds on a connection (docs/configuration.md, HTTP server). The header and request
 * timeouts are checked on a timer, every second at most, so a connection outlives its bound by up
 * to that. The request timeout covers receiving the request only: an answer being streamed is not
 * bound by it, however long it runs.
 */
function serverLimits(limits: HttpServerLimits) {
  return {
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
  };
}

function registerSurface(
  app: FastifyInstance,
  options: AppOptions,
  surface: RouteModule['surface'],
  authenticate: (request: FastifyRequest) => Promise<Principal>,
): void {
  app.register(
    async (scope) => {
      if (surface === 'v1' && options.corsOrigins !== undefined) registerCors(scope, options.corsOrigins);
      scope.addHook('onRequest', async (request) => {
        request.principal = await authenticate(request);
      });
      // A surface's own 404 runs its hooks: an unknown path is 401 before it is 404, so
      // routes cannot be probed without a key.
      scope.setNotFoundHandler(async (request, reply) =>
        renderError(new GatewayError('not_found'), request, reply),
      );
      for (const module of options.modules) {
        if (module.surface === surface) module.register(scope, options.docs);
      }
    },
    { prefix: `/${surface}` },
  );
}

function renderError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  messages: UpstreamErrorMessages = 'generic',
): unknown {
  if (clientLeft(error, request)) {
    request.log.info({ err: String(error) }, 'client aborted the request');
    reply.code(499);
    return renderErrorBody(new GatewayError('invalid_request'), errorShapeFor(request.url));
  }
  const gatewayError = toGatewayError(error);
  if (gatewayError.status >= 500) {
    request.log.error(
      { code: gatewayError.code, detail: gatewayError.detail, err: gatewayError.cause },
      'request failed',
    );
  }
  const shape = errorShapeFor(request.url, request.headers['anthropic-version']);
  reply.code(errorStatus(gatewayError, shape)).headers(errorHeaders(gatewayError));
  return renderErrorBody(gatewayError, shape, messages);
}

/**
 * A client that hung up while its body was read (an aborted upload): the read fails with the
 * socket's own error (ECONNRESET), which is not a dependency outage and nobody is left to answer.
 */
function clientLeft(error: unknown, request: FastifyRequest): boolean {
  // Not `raw.destroyed`: a request stream is destroyed once its body was read whole, so a route
  // that throws after reading (a ZodError from its own parse) would be taken for a client abort.
  if (error instanceof GatewayError) return false;
  return request.raw.readableAborted || request.raw.socket?.destroyed === true;
}
