import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { DeploymentDirectory } from '../../deployments/deployment-directory.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import { registerAdminRoute } from './admin-route.ts';

const cooldownsSchema = z
  .object({
    data: z.array(
      z.object({
        deploymentId: z.string(),
        publicModel: z.string(),
        remainingMs: z.number().meta({ description: 'Until the deployment is back in its pool.' }),
        until: z.string().meta({ description: 'RFC 3339.' }),
      }),
    ),
  })
  .meta({ id: 'DeploymentCooldowns' });

/** How long a deployment stays out of its pool, as the answering replica's router sees it. */
export type CooldownRemaining = (deploymentId: string) => number;

/**
 * `GET /admin/deployments/cooldowns`: the deployments out of their pool now (the console's
 * Deployments page). Read from the replica's mirror of the shared cooldowns: no round trip.
 */
export function registerCooldownRoute(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  directory: DeploymentDirectory,
  remainingMs: CooldownRemaining,
): void {
  registerAdminRoute(scope, docs, {
    method: 'get',
    path: '/deployments/cooldowns',
    summary: 'The deployments in cooldown now, and until when',
    tag: 'deployments',
    response: cooldownsSchema,
    responseDescription: 'Every deployment out of its pool on the answering replica.',
    handle: async () => {
      const now = Date.now();
      const data = directory.publicModels().flatMap((publicModel) =>
        directory.deploymentsOf(publicModel).flatMap((deployment) => {
          const remaining = remainingMs(deployment.id);
          if (remaining <= 0) return [];
          const until = new Date(now + remaining).toISOString();
          return [{ deploymentId: deployment.id, publicModel, remainingMs: remaining, until }];
        }),
      );
      return { data };
    },
  });
}
