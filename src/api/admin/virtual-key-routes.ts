import type { FastifyInstance } from 'fastify';
import type { VirtualKeyAdmin } from '../../keys/virtual-key-admin.ts';
import { virtualKeyCreateSchema, virtualKeyPatchSchema } from '../../keys/virtual-key-schemas.ts';
import { issuedVirtualKeySchema, virtualKeyView, virtualKeyViewSchema } from '../../keys/virtual-key-view.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import { registerCrudRoutes } from './crud-routes.ts';

/** `/admin/keys` (DESIGN.md section 5, Virtual key): thin handlers over VirtualKeyAdmin. */
export function registerVirtualKeyRoutes(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  admin: VirtualKeyAdmin,
): void {
  registerCrudRoutes(scope, docs, {
    path: '/keys',
    tag: 'keys',
    noun: 'virtual key',
    service: admin,
    view: { schema: virtualKeyViewSchema, pageId: 'VirtualKeyPage', render: virtualKeyView },
    create: {
      summary: 'Issue a virtual key (the secret is in `key`, shown only here)',
      body: virtualKeyCreateSchema,
      response: issuedVirtualKeySchema,
      responseDescription: 'The key, with its secret in `key`.',
      handle: async (body) => {
        const { row, secret } = await admin.create(body);
        return { ...virtualKeyView(row), key: secret };
      },
    },
    list: { summary: 'List virtual keys', responseDescription: 'A page of virtual keys, oldest first.' },
    get: { summary: 'Read a virtual key', responseDescription: 'The key (never its secret).' },
    patch: {
      summary: 'Change a virtual key (absent = unchanged, null clears)',
      body: virtualKeyPatchSchema,
      responseDescription: 'The key after the change.',
    },
    delete: { summary: 'Delete a virtual key (it is refused with 401 at once, on every replica)' },
  });
}
