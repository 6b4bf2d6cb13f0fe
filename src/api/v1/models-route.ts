import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { mayUseModel, type Principal } from '../../auth/principal.ts';
import type { DeploymentDirectory } from '../../deployments/deployment-directory.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
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

const anthropicModelSchema = z
  .object({
    type: z.literal('model'),
    id: z.string().meta({ description: 'The public model name, as `model` takes it.' }),
    display_name: z.string().meta({ description: 'The public model name.' }),
    created_at: z.string().meta({ description: 'Not tracked: always 1970-01-01T00:00:00Z.' }),
  })
  .meta({ id: 'AnthropicModel' });
const anthropicModelListSchema = z
  .object({
    data: z.array(anthropicModelSchema),
    has_more: z.boolean(),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
  })
  .meta({
    id: 'AnthropicModelList',
    description: 'The public models the calling key may use (Anthropic list format, one page).',
  });
type AnthropicModel = z.infer<typeof anthropicModelSchema>;
type AnthropicModelList = z.infer<typeof anthropicModelListSchema>;

/** Anthropic API reference, "List Models": `limit` 1-1000, default 20; `after_id` / `before_id` cursors. */
const anthropicPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(20),
  after_id: z.string().optional(),
  before_id: z.string().optional(),
});

/** What the models list reads of the deployment directory. */
export type ModelSource = Pick<DeploymentDirectory, 'publicModels' | 'deploymentsOf'>;

/** Creation times are not tracked: Anthropic's `created_at` names the epoch, as OpenAI's `created` is 0. */
const NOT_TRACKED_CREATED_AT = '1970-01-01T00:00:00Z';

/**
 * DESIGN.md section 5 (Inference extras): the public models with at least one enabled deployment
 * that `principal` may call (the master key: all of them), sorted by name.
 */
function usableModels(source: ModelSource, principal: Principal): string[] {
  return source
    .publicModels()
    .filter((name) => isUsable(source, principal, name))
    .sort();
}

function isUsable(source: ModelSource, principal: Principal, name: string): boolean {
  return mayUseModel(principal, name) && source.deploymentsOf(name).some((deployment) => deployment.enabled);
}

const openAIModel = (id: string) => ({
  id,
  object: 'model' as const,
  created: 0,
  owned_by: 'switchyard' as const,
});
const anthropicModel = (id: string): AnthropicModel => ({
  type: 'model',
  id,
  display_name: id,
  created_at: NOT_TRACKED_CREATED_AT,
});

/** One page of the Anthropic list: `limit` models after `after_id`, or before `before_id`. */
function anthropicPage(ids: string[], query: z.infer<typeof anthropicPageQuery>): AnthropicModelList {
  let start = 0;
  let end = ids.length;
  if (query.after_id !== undefined) start = ids.findIndex((id) => id > query.after_id!);
  if (start === -1) start = ids.length;
  if (query.before_id !== undefined) {
    end = ids.filter((id) => id < query.before_id!).length;
    start = Math.max(0, end - query.limit);
  } else {
    end = Math.min(ids.length, start + query.limit);
  }
  const page = ids.slice(start, end);
  const hasMore = query.before_id !== undefined ? start > 0 : end < ids.length;
  return {
    data: page.map(anthropicModel),
    has_more: hasMore,
    first_id: page[0] ?? null,
    last_id: page.at(-1) ?? null,
  };
}

/**
 * The caller speaks Anthropic when it sends `anthropic-version` (the Anthropic SDKs and Claude
 * Code always do; OpenAI clients never): the models list and errors answer in its shape.
 */
export function speaksAnthropic(headers: FastifyRequest['headers']): boolean {
  return headers['anthropic-version'] !== undefined;
}

/** `GET /v1/models` and `GET /v1/models/{id}`, in OpenAI's format or, for an Anthropic caller, Anthropic's. */
export function registerModelsRoute(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  source: ModelSource,
): void {
  scope.get('/models', async (request) => {
    const ids = usableModels(source, request.principal);
    if (!speaksAnthropic(request.headers)) return { object: 'list', data: ids.map(openAIModel) };
    return anthropicPage(ids, anthropicPageQuery.parse(request.query));
  });
  // Model names with a slash reach here too: the SDKs percent-encode path parameters.
  scope.get('/models/:id', async (request) => {
    const { id } = request.params as { id: string };
    if (!isUsable(source, request.principal, id)) {
      throw new GatewayError('model_not_found', { param: 'model' });
    }
    return speaksAnthropic(request.headers) ? anthropicModel(id) : openAIModel(id);
  });
  const errors = {
    description: 'An error in the OpenAI shape, or the Anthropic shape with `anthropic-version`.',
  };
  const anthropicVersion = {
    name: 'anthropic-version',
    in: 'header' as const,
    required: false,
    description: "When present, the answer (and any error) is in Anthropic's format.",
    schema: { type: 'string' as const },
  };
  docs.add({
    method: 'get',
    path: '/v1/models',
    operation: {
      summary:
        'The models the calling key may use (OpenAI format, or Anthropic format with `anthropic-version`)',
      tags: ['inference'],
      security: INFERENCE_SECURITY,
      parameters: [anthropicVersion],
      requestParams: { query: anthropicPageQuery },
      responses: {
        200: {
          description:
            'The model list; with `anthropic-version`, a page of it (`limit`, `after_id`, `before_id`).',
          content: { 'application/json': { schema: z.union([modelListSchema, anthropicModelListSchema]) } },
        },
        default: errors,
      },
    },
  });
  docs.add({
    method: 'get',
    path: '/v1/models/{id}',
    operation: {
      summary:
        'One model the calling key may use (OpenAI format, or Anthropic format with `anthropic-version`)',
      tags: ['inference'],
      security: INFERENCE_SECURITY,
      parameters: [anthropicVersion],
      requestParams: { path: z.object({ id: z.string() }) },
      responses: {
        200: {
          description: 'The model.',
          content: { 'application/json': { schema: z.union([modelSchema, anthropicModelSchema]) } },
        },
        404: { description: '`model_not_found`: no such model, or not one the key may use.' },
        default: errors,
      },
    },
  });
}
