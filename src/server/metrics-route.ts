import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth/authenticator.ts';
import { PROMETHEUS_CONTENT_TYPE } from '../telemetry/prometheus-text.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import type { OpenApiRegistry } from './openapi.ts';
import { ADMIN_SECURITY } from './openapi.ts';

/**
 * `GET /metrics`: the call metrics in Prometheus text format. Outside `/admin` because that is
 * where scrapers look, but guarded like the admin surface: the master key by Bearer only.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  docs: OpenApiRegistry,
  authenticator: Authenticator,
  telemetry: Telemetry,
): void {
  app.get('/metrics', async (request, reply) => {
    authenticator.admin({
      authorization: request.headers.authorization,
      xApiKey: undefined,
      queryApiKey: undefined,
    });
    reply.header('content-type', PROMETHEUS_CONTENT_TYPE);
    return telemetry.metricsText();
  });
  docs.add({
    method: 'get',
    path: '/metrics',
    operation: {
      summary: 'Call metrics in Prometheus text format (master key)',
      tags: ['telemetry'],
      security: ADMIN_SECURITY,
      responses: {
        200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': {} } },
        401: { description: 'Missing or wrong master key.' },
      },
    },
  });
}
