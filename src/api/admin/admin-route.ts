import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { ZodOpenApiResponsesObject } from 'zod-openapi';
import { ADMIN_SECURITY, type HttpMethod, type OpenApiRegistry, openApiPath } from '../../server/openapi.ts';
import { parseInput } from './admin-input.ts';

/** One admin route: its inputs' schemas (which validate and document it), its answer, its handler. */
export interface AdminRoute<Params, Query, Body> {
  method: HttpMethod;
  /** fastify path under `/admin`, e.g. `/deployments/:id`. */
  path: string;
  summary: string;
  tag: string;
  params?: z.ZodType<Params>;
  query?: z.ZodType<Query>;
  body?: z.ZodType<Body>;
  /** The success status (200 unless given) and the schema of its body. */
  status?: number;
  response: z.ZodType;
  responseDescription: string;
  handle(input: {
    params: Params;
    query: Query;
    body: Body;
    caller: AdminCaller;
    /** Adds a header to the answer. */
    header(name: string, value: string): void;
  }): Promise<unknown>;
}

/** Where an admin request came from, for the routes that audit what they show (payload access). */
export interface AdminCaller {
  requestId: string;
  sourceAddress: string;
}

const ERROR_RESPONSES: ZodOpenApiResponsesObject = {
  400: { description: '`invalid_request`: a field failed validation; `param` names it.' },
  401: { description: '`invalid_api_key`: not the master key (virtual keys are refused here).' },
};

/**
 * Registers an admin route and its OpenAPI entry from the same schemas (STYLE.md point 10:
 * validate at the edges). The handler gets parsed inputs; a bad one is a 400 naming the field.
 */
export function registerAdminRoute<Params, Query, Body>(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  route: AdminRoute<Params, Query, Body>,
): void {
  const status = route.status ?? 200;
  scope.route({
    method: route.method.toUpperCase() as Uppercase<HttpMethod>,
    url: route.path,
    handler: async (request, reply) => {
      const input = {
        params: (route.params ? parseInput(route.params, request.params, 'path') : undefined) as Params,
        query: (route.query ? parseInput(route.query, request.query ?? {}, 'query') : undefined) as Query,
        body: (route.body ? parseInput(route.body, request.body, 'body') : undefined) as Body,
        caller: { requestId: request.id, sourceAddress: request.ip },
        header: (name: string, value: string) => void reply.header(name, value),
      };
      const answer = await route.handle(input);
      reply.code(status);
      return answer;
    },
  });
  const notFound = route.params ? { 404: { description: '`not_found`: no resource with that id.' } } : {};
  docs.add({
    method: route.method,
    path: openApiPath(`/admin${route.path}`),
    operation: {
      summary: route.summary,
      tags: [route.tag],
      security: ADMIN_SECURITY,
      ...(route.params || route.query
        ? {
            requestParams: {
              ...(route.params ? { path: route.params as z.ZodObject } : {}),
              ...(route.query ? { query: route.query as z.ZodObject } : {}),
            },
          }
        : {}),
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } }
        : {}),
      responses: {
        [status]: {
          description: route.responseDescription,
          content: { 'application/json': { schema: route.response } },
        },
        ...ERROR_RESPONSES,
        ...notFound,
      },
    },
  });
}
