import type { FastifyInstance } from 'fastify';
import type { ExtensionAdmin } from '../../extensions/extension-admin.ts';
import { extensionCreateSchema, extensionPatchSchema } from '../../extensions/extension-schemas.ts';
import { extensionView, extensionViewSchema } from '../../extensions/extension-view.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import { registerAdminRoute } from './admin-route.ts';
import { type IdParams, idParamsSchema } from './admin-schemas.ts';
import { notFound, registerCrudRoutes } from './crud-routes.ts';

const TAG = 'extensions';

/** `/admin/extensions` (DESIGN.md section 5, Extensions): thin handlers over ExtensionAdmin. */
export function registerExtensionRoutes(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  admin: ExtensionAdmin,
): void {
  registerCrudRoutes(scope, docs, {
    path: '/extensions',
    tag: TAG,
    noun: 'extension',
    service: admin,
    view: { schema: extensionViewSchema, pageId: 'ExtensionPage', render: extensionView },
    create: {
      summary: 'Create an extension (variant B; the source is compiled first: a 400 names the problem)',
      body: extensionCreateSchema,
      response: extensionViewSchema,
      responseDescription: 'The extension, `active`.',
      handle: async (body) => extensionView(await admin.create(body)),
    },
    list: { summary: 'List extensions', responseDescription: 'A page of extensions, in id (run) order.' },
    get: {
      summary: 'Read an extension',
      responseDescription: 'The extension and its breaker on this replica.',
    },
    patch: {
      summary:
        'Change an extension (absent = unchanged; a new source is compiled first and resets the breaker)',
      body: extensionPatchSchema,
      responseDescription: 'The extension after the change.',
    },
    delete: { summary: 'Delete an extension' },
    configName: (status) => status.definition.configName,
  });
  registerAdminRoute<IdParams, never, never>(scope, docs, {
    method: 'post',
    path: '/extensions/:id/reset',
    summary: "Reset an extension's failure breaker on every replica",
    tag: TAG,
    params: idParamsSchema,
    response: extensionViewSchema,
    responseDescription: 'The extension, `active` again.',
    handle: async ({ params }) =>
      extensionView((await admin.reset(params.id)) ?? notFound('extension', params.id)),
  });
}
