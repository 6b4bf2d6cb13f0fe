import type { FastifyInstance } from 'fastify';
import {
  type RouterSettings,
  type RouterSettingsStore,
  routerSettingsSchema,
} from '../../router/router-settings.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import { registerAdminRoute } from './admin-route.ts';

const TAG = 'router-settings';

/** `GET`/`PUT /admin/router-settings` (DESIGN.md section 5): the whole settings, stored in the database. */
export function registerRouterSettingsRoutes(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  store: RouterSettingsStore,
): void {
  registerAdminRoute<never, never, never>(scope, docs, {
    method: 'get',
    path: '/router-settings',
    summary: 'Read the router settings',
    tag: TAG,
    response: routerSettingsSchema,
    responseDescription: 'The settings in force on this replica (defaults where none were saved).',
    handle: async () => store.current(),
  });
  registerAdminRoute<never, never, RouterSettings>(scope, docs, {
    method: 'put',
    path: '/router-settings',
    summary: 'Replace the router settings (absent fields take their defaults)',
    tag: TAG,
    body: routerSettingsSchema,
    response: routerSettingsSchema,
    responseDescription: 'The settings now in force on every replica.',
    handle: async ({ body }) => store.save(body),
  });
}
