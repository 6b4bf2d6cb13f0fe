import type { FastifyInstance } from 'fastify';
import type { DeploymentAdmin } from '../../deployments/deployment-admin.ts';
import {
  type DeploymentCreateInput,
  deploymentCreateSchema,
  deploymentPatchSchema,
} from '../../deployments/deployment-schemas.ts';
import { deploymentView, deploymentViewSchema } from '../../deployments/deployment-view.ts';
import { resolvedDeploymentSchema } from '../../deployments/resolved-deployment-schema.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import { registerAdminRoute } from './admin-route.ts';
import { registerCrudRoutes } from './crud-routes.ts';

const TAG = 'deployments';

/** `/admin/deployments` (DESIGN.md section 5, Deployment): thin handlers over DeploymentAdmin. */
export function registerDeploymentRoutes(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  admin: DeploymentAdmin,
): void {
  registerCrudRoutes(scope, docs, {
    path: '/deployments',
    tag: TAG,
    noun: 'deployment',
    service: admin,
    configName: (row) => row.config_name,
    view: { schema: deploymentViewSchema, pageId: 'DeploymentPage', render: deploymentView },
    create: {
      summary: 'Create a deployment',
      body: deploymentCreateSchema,
      response: deploymentViewSchema,
      responseDescription: 'The deployment; the credential is never returned (`hasApiKey`).',
      handle: async (body) => deploymentView(await admin.create(body)),
    },
    afterCreate: () => registerResolveRoute(scope, docs, admin),
    list: { summary: 'List deployments', responseDescription: 'A page of deployments, oldest first.' },
    get: { summary: 'Read a deployment', responseDescription: 'The deployment.' },
    patch: {
      summary: 'Change a deployment (absent = unchanged, null clears, apiKey replaces)',
      body: deploymentPatchSchema,
      responseDescription: 'The deployment after the change.',
    },
    delete: { summary: 'Delete a deployment' },
  });
}

function registerResolveRoute(scope: FastifyInstance, docs: OpenApiRegistry, admin: DeploymentAdmin): void {
  registerAdminRoute<never, never, DeploymentCreateInput>(scope, docs, {
    method: 'post',
    path: '/deployments/resolve',
    summary: 'Validate a deployment and resolve its operation profile, saving nothing',
    tag: TAG,
    body: deploymentCreateSchema,
    response: resolvedDeploymentSchema,
    responseDescription: 'How each operation would be served.',
    handle: async ({ body }) => admin.resolve(body),
  });
}
