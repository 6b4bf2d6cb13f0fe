import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';

/** The gateway's version, as package.json and the OpenAPI document's `info.version` say. */
export const GATEWAY_VERSION = '0.1.0';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteDoc {
  method: HttpMethod;
  /** OpenAPI path template: `/admin/deployments/{id}`. */
  path: string;
  operation: ZodOpenApiOperationObject;
}

/** Converts a fastify path (`/admin/deployments/:id`) to an OpenAPI template (`/admin/deployments/{id}`). */
export function openApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/**
 * Collects the documentation of every route as it is registered, from the same zod schemas that
 * validate requests, and builds the published OpenAPI 3.1 document (SPEC.md, Versioning).
 */
export class OpenApiRegistry {
  readonly #routes: RouteDoc[] = [];
  #document: object | undefined;

  add(route: RouteDoc): void {
    this.#routes.push(route);
    this.#document = undefined;
  }

  document(): object {
    this.#document ??= this.#build();
    return this.#document;
  }

  #build(): object {
    const paths: ZodOpenApiPathsObject = {};
    for (const route of this.#routes) {
      paths[route.path] = { ...paths[route.path], [route.method]: route.operation };
    }
    return createDocument({
      openapi: '3.1.0',
      info: {
        title: 'Switchyard',
        version: GATEWAY_VERSION,
        description:
          'Model routing gateway: inference under /v1 (OpenAI and Anthropic formats), administration under /admin.',
      },
      components: {
        securitySchemes: {
          masterKey: { type: 'http', scheme: 'bearer', description: 'MASTER_KEY (admin surface).' },
          bearerKey: { type: 'http', scheme: 'bearer', description: 'Master key or virtual key.' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          apiKeyQuery: {
            type: 'apiKey',
            in: 'query',
            name: 'api_key',
            description: 'For EventSource clients.',
          },
        },
      },
      paths,
    });
  }
}

/** Security requirement objects for the two surfaces. */
export const INFERENCE_SECURITY: Record<string, string[]>[] = [
  { bearerKey: [] },
  { apiKeyHeader: [] },
  { apiKeyQuery: [] },
];
export const ADMIN_SECURITY: Record<string, string[]>[] = [{ masterKey: [] }];
