import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import {
  type PageQuery,
  type PageRequest,
  pageQuerySchema,
  pageRequest,
  pageSchema,
  toPage,
} from '../../admin-kit/pagination.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { OpenApiRegistry } from '../../server/openapi.ts';
import { type AdminRoute, registerAdminRoute } from './admin-route.ts';
import { deletedSchema, type IdParams, idParamsSchema } from './admin-schemas.ts';

/** The rules behind a CRUD resource. An absent row is `undefined` (or `false`); the routes make it a 404. */
export interface CrudService<Row, Patch> {
  list(page: PageRequest): Promise<Row[]>;
  get(id: string): Promise<Row | undefined>;
  update(id: string, patch: Patch): Promise<Row | undefined>;
  /** `query`: the delete's query string, when the resource takes one (`CrudResource.delete.query`). */
  delete(id: string, query?: unknown): Promise<boolean>;
}

/** What the OpenAPI document says of one operation. */
type OperationText = Pick<AdminRoute<never, never, never>, 'summary' | 'responseDescription'>;

/** Everything that differs between two admin resources with create, list, read, change and delete. */
export interface CrudResource<Row extends { id: string }, Create, Patch> {
  /** The collection's fastify path under `/admin` (`/deployments`); an item is `${path}/:id`. */
  path: string;
  tag: string;
  /** Named in a 404: `No ${noun} with id '...'.` */
  noun: string;
  service: CrudService<Row, Patch>;
  /** The row as the API shows it, and the OpenAPI id of a page of them. */
  view: { schema: z.ZodType; pageId: string; render(row: Row): unknown };
  /** Create answers on its own terms (a virtual key shows its secret once), so it brings its handler. */
  create: OperationText & {
    body: z.ZodType<Create>;
    response: z.ZodType;
    handle(body: Create): Promise<unknown>;
  };
  list: OperationText;
  get: OperationText;
  patch: OperationText & { body: z.ZodType<Patch> };
  /** `query`: options of the delete (a team's `cascade`), passed to the service. */
  delete: Pick<OperationText, 'summary'> & { query?: z.ZodType };
  /** The name a configuration file gives the row (null: not managed by one); see managedWarning. */
  configName?(row: Row): string | null;
  /** Registers the resource's other collection routes right after create, where the document lists them. */
  afterCreate?(): void;
}

/**
 * Registers `POST` and `GET ${path}` and `GET`, `PATCH` and `DELETE ${path}/:id` with their
 * OpenAPI entries, as thin handlers over the resource's service.
 */
export function registerCrudRoutes<Row extends { id: string }, Create, Patch>(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  resource: CrudResource<Row, Create, Patch>,
): void {
  registerCollectionRoutes(scope, docs, resource);
  registerItemRoutes(scope, docs, resource);
}

function registerCollectionRoutes<Row extends { id: string }, Create, Patch>(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  { path, tag, service, view, create, list, afterCreate }: CrudResource<Row, Create, Patch>,
): void {
  registerAdminRoute<never, never, Create>(scope, docs, {
    method: 'post',
    path,
    summary: create.summary,
    tag,
    body: create.body,
    status: 201,
    response: create.response,
    responseDescription: create.responseDescription,
    handle: ({ body }) => create.handle(body),
  });
  afterCreate?.();
  registerAdminRoute<never, PageQuery, never>(scope, docs, {
    method: 'get',
    path,
    ...list,
    tag,
    query: pageQuerySchema,
    response: pageSchema(view.schema, view.pageId),
    handle: async ({ query }) => {
      const page = pageRequest(query);
      return toPage(await service.list(page), page.limit, view.render);
    },
  });
}

function registerItemRoutes<Row extends { id: string }, Create, Patch>(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  resource: CrudResource<Row, Create, Patch>,
): void {
  const { tag, service, view } = resource;
  const path = `${resource.path}/:id`;
  const shown = (id: string, row: Row | undefined): unknown =>
    view.render(row ?? notFound(resource.noun, id));
  registerAdminRoute<IdParams, never, never>(scope, docs, {
    method: 'get',
    path,
    ...resource.get,
    tag,
    params: idParamsSchema,
    response: view.schema,
    handle: async ({ params }) => shown(params.id, await service.get(params.id)),
  });
  registerAdminRoute<IdParams, never, Patch>(scope, docs, {
    method: 'patch',
    path,
    ...resource.patch,
    tag,
    params: idParamsSchema,
    response: view.schema,
    handle: async ({ params, body, header }) => {
      const row = await service.update(params.id, body);
      warnIfManaged(resource, row, header);
      return shown(params.id, row);
    },
  });
  registerAdminRoute<IdParams, unknown, never>(scope, docs, {
    method: 'delete',
    path,
    ...resource.delete,
    tag,
    params: idParamsSchema,
    response: deletedSchema,
    responseDescription: 'Deleted.',
    handle: async ({ params, query, header }) => {
      if (resource.configName !== undefined) warnIfManaged(resource, await service.get(params.id), header);
      if (!(await service.delete(params.id, query))) notFound(resource.noun, params.id);
      return { id: params.id, deleted: true };
    },
  });
}

/**
 * An admin edit of an object a configuration file manages is made, and answered with a warning:
 * the next apply of the file puts the file's values back (docs/configuration.md, Configuration file).
 */
function warnIfManaged<Row extends { id: string }>(
  resource: CrudResource<Row, unknown, unknown>,
  row: Row | undefined,
  header: (name: string, value: string) => void,
): void {
  const name = row === undefined ? null : (resource.configName?.(row) ?? null);
  if (name === null) return;
  header('x-switchyard-managed-by', 'config-file');
  header(
    'x-switchyard-warning',
    `${resource.noun} "${name}" is managed by a configuration file: the next apply overwrites this change`,
  );
}

/** The 404 of a resource route: `No ${noun} with id '...'.` */
export function notFound(noun: string, id: string): never {
  throw new GatewayError('not_found', { param: 'id', message: `No ${noun} with id '${id}'.` });
}
