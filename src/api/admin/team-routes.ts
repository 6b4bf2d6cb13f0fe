import type { FastifyInstance } from 'fastify';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import type { TeamAdmin } from '../../teams/team-admin.ts';
import { teamCreateSchema, teamDeleteQuerySchema, teamPatchSchema } from '../../teams/team-schemas.ts';
import { teamView, teamViewSchema } from '../../teams/team-view.ts';
import { notFound, registerCrudRoutes } from './crud-routes.ts';
import { registerResetSpendRoute } from './reset-spend-route.ts';

const NOUN = 'team';

/** `/admin/teams` (DESIGN.md section 5, Governance): thin handlers over TeamAdmin. */
export function registerTeamRoutes(scope: FastifyInstance, docs: OpenApiRegistry, admin: TeamAdmin): void {
  registerCrudRoutes(scope, docs, {
    path: '/teams',
    tag: 'teams',
    noun: NOUN,
    service: admin,
    configName: (row) => row.config_name,
    view: { schema: teamViewSchema, pageId: 'TeamPage', render: (row) => teamView(row, admin.now()) },
    create: {
      summary: 'Create a team',
      body: teamCreateSchema,
      response: teamViewSchema,
      responseDescription: 'The team.',
      handle: async (body) => teamView(await admin.create(body), admin.now()),
    },
    list: { summary: 'List teams', responseDescription: 'A page of teams, oldest first.' },
    get: { summary: 'Read a team', responseDescription: 'The team.' },
    patch: {
      summary: 'Change a team (absent = unchanged, null clears)',
      body: teamPatchSchema,
      responseDescription: 'The team after the change.',
    },
    delete: {
      summary: 'Delete a team (409 `team_has_keys` while keys belong to it, unless `?cascade=disable`)',
      query: teamDeleteQuerySchema,
    },
  });
  registerResetSpendRoute(scope, docs, {
    path: '/teams/:id/reset-spend',
    tag: 'teams',
    noun: NOUN,
    response: teamViewSchema,
    reset: async (id) => teamView((await admin.resetSpend(id)) ?? notFound(NOUN, id), admin.now()),
  });
}
