import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { mayUseModel, type Principal } from '../../auth/principal.ts';
import type { DeploymentDirectory } from '../../deployments/deployment-directory.ts';
import { INFERENCE_SECURITY, type OpenApiRegistry } from '../../server/openapi.ts';

const modelSchema = z
  .object({
    id: z.string().meta({ description: 'The public model name, as `model` takes it.' }),
    object: z.literal('model'),
    created: z.number().int().meta({ description: 'Not tracked: always 0.' }),
    owned_by: z.literal('switchyard'),
  })
  .meta({ id: 'Model' });

const modelListSchema = z
  .object({ object: z.literal('list'), data: z.array(modelSchema) })
  .meta({ id: 'ModelList', description: 'The public models the calling key may use (OpenAI list format).' });

export type ModelList = z.infer<typeof modelListSchema>;

/** What the models list reads of the deployment directory. */
export type ModelSource = Pick<DeploymentDirectory, 'publicModels' | 'deploymentsOf'>;

/**
 * DESIGN.md section 5 (Inference extras): the public models with at least one enabled deployment
 * that `principal` may call (the master key: all of them), sorted by name.
 */
export function listModels(source: ModelSource, principal: Principal): ModelList {
  const ids = source
    .publicModels()
    .filter((name) => mayUseModel(principal, name))
    .filter((name) => source.deploymentsOf(name).some((deployment) => deployment.enabled))
    .sort();
  return {
    object: 'list',
    data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'switchyard' })),
  };
}

/** `GET /v1/models`, in OpenAI's list format. */
export function registerModelsRoute(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  source: ModelSource,
): void {
  scope.get('/models', async (request) => listModels(source, request.principal));
  docs.add({
    method: 'get',
    path: '/v1/models',
    operation: {
      summary: 'The models the calling key may use (OpenAI format)',
      tags: ['inference'],
      security: INFERENCE_SECURITY,
      responses: {
        200: { description: 'The model list.', content: { 'application/json': { schema: modelListSchema } } },
        default: { description: 'An error in the OpenAI shape.' },
      },
    },
  });
}
