import type { FastifyInstance } from 'fastify';
import type { VirtualKeyAdmin } from '../../keys/virtual-key-admin.ts';
import {
  type VirtualKeyRotateInput,
  virtualKeyCreateSchema,
  virtualKeyPatchSchema,
  virtualKeyRotateSchema,
} from '../../keys/virtual-key-schemas.ts';
import { issuedVirtualKeySchema, virtualKeyView, virtualKeyViewSchema } from '../../keys/virtual-key-view.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import { registerAdminRoute } from './admin-route.ts';
import { type IdParams, idParamsSchema } from './admin-schemas.ts';
import { notFound, registerCrudRoutes } from './crud-routes.ts';
import { registerResetSpendRoute } from './reset-spend-route.ts';

const NOUN = 'virtual key';

/** `/admin/keys` (DESIGN.md section 5, Virtual key): thin handlers over VirtualKeyAdmin. */
export function registerVirtualKeyRoutes(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  admin: VirtualKeyAdmin,
): void {
  registerCrudRoutes(scope, docs, {
    path: '/keys',
    tag: 'keys',
    noun: NOUN,
    service: admin,
    configName: (row) => row.config_name,
    view: {
      schema: virtualKeyViewSchema,
      pageId: 'VirtualKeyPage',
      render: (row) => virtualKeyView(row, admin.now()),
    },
    create: {
      summary: 'Issue a virtual key (the secret is in `key`, shown only here)',
      body: virtualKeyCreateSchema,
      response: issuedVirtualKeySchema,
      responseDescription: 'The key, with its secret in `key`.',
      handle: async (body) => {
        const { row, secret } = await admin.create(body);
        return { ...virtualKeyView(row, admin.now()), key: secret };
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
  registerRotateRoute(scope, docs, admin);
  registerResetSpendRoute(scope, docs, {
    path: '/keys/:id/reset-spend',
    tag: 'keys',
    noun: NOUN,
    response: virtualKeyViewSchema,
    reset: async (id) => virtualKeyView((await admin.resetSpend(id)) ?? notFound(NOUN, id), admin.now()),
  });
}

/** `POST /admin/keys/:id/rotate` (DESIGN.md section 5, Governance): a new secret, shown once. */
function registerRotateRoute(scope: FastifyInstance, docs: OpenApiRegistry, admin: VirtualKeyAdmin): void {
  registerAdminRoute<IdParams, never, VirtualKeyRotateInput>(scope, docs, {
    method: 'post',
    path: '/keys/:id/rotate',
    summary: 'Rotate a virtual key: a new secret in `key`, the old one valid for `gracePeriodSeconds`',
    tag: 'keys',
    params: idParamsSchema,
    // No body is `{}`: rotate now, no grace period.
    body: virtualKeyRotateSchema.prefault({}),
    response: issuedVirtualKeySchema,
    responseDescription: 'The key, with its new secret in `key` (shown only here).',
    handle: async ({ params, body }) => {
      const rotated = (await admin.rotate(params.id, body)) ?? notFound(NOUN, params.id);
      return { ...virtualKeyView(rotated.row, admin.now()), key: rotated.secret };
    },
  });
}
