import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import { registerAdminRoute } from './admin-route.ts';
import { type IdParams, idParamsSchema } from './admin-schemas.ts';

export interface ResetSpendRoute {
  path: string;
  tag: string;
  noun: string;
  response: z.ZodType;
  /** Starts a new period for `id` and answers its view (a 404 when there is none). */
  reset(id: string): Promise<unknown>;
}

/** `POST /admin/{keys|teams}/:id/reset-spend` (DESIGN.md section 5, Governance). */
export function registerResetSpendRoute(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  route: ResetSpendRoute,
): void {
  registerAdminRoute<IdParams, never, never>(scope, docs, {
    method: 'post',
    path: route.path,
    summary: `Reset a ${route.noun}'s budget: a new budget period starts now, with nothing spent in it (\`spendCents\` stays cumulative)`,
    tag: route.tag,
    params: idParamsSchema,
    response: route.response,
    responseDescription: `The ${route.noun}, its \`periodSpendCents\` 0.`,
    handle: ({ params }) => route.reset(params.id),
  });
}
