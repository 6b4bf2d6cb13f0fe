import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Variant } from '../../config.ts';
import { GATEWAY_VERSION, type OpenApiRegistry } from '../../server/openapi.ts';
import { registerAdminRoute } from './admin-route.ts';

const statusSchema = z
  .object({
    variant: z.enum(['a', 'b']),
    version: z.string(),
    startedAt: z.string().meta({ description: 'When this replica process started (RFC 3339).' }),
    uptimeSeconds: z.number(),
  })
  .meta({ id: 'GatewayStatus' });

/**
 * `GET /admin/status`: what the console's health page shows beside readiness, which `/health/ready`
 * leaves out because it is public: the variant, the version and this replica's uptime.
 */
export function registerStatusRoute(scope: FastifyInstance, docs: OpenApiRegistry, variant: Variant): void {
  registerAdminRoute(scope, docs, {
    method: 'get',
    path: '/status',
    summary: "The gateway's variant, version and this replica's uptime",
    tag: 'health',
    response: statusSchema,
    responseDescription: 'The answering replica.',
    handle: async () => {
      const uptimeSeconds = process.uptime();
      return {
        variant,
        version: GATEWAY_VERSION,
        startedAt: new Date(Date.now() - uptimeSeconds * 1000).toISOString(),
        uptimeSeconds,
      };
    },
  });
}
