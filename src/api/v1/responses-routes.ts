/**
 * DESIGN.md section 5 (Inference extras; Stored responses and compaction capsules): reading and
 * deleting stored responses and listing their input items, in OpenAI's shapes, and (variant B)
 * `POST /v1/responses/compact`. A key sees only its own responses; the master key sees all.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { mayUseModel, type Principal } from '../../auth/principal.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { responsesItem } from '../../formats/responses/body-schema.ts';
import type { Compactor, ConversationItem, ResponseStateStore } from '../../responses-state/index.ts';
import { INFERENCE_SECURITY, type OpenApiRegistry } from '../../server/openapi.ts';
import type { ModelSource } from './models-route.ts';
import { listedItems } from './responses-items.ts';

export interface ResponsesRoutesDeps {
  store: ResponseStateStore;
  /** Null in variant A: no compaction route. */
  compactor: Compactor | null;
  directory: ModelSource;
}

const idParams = z.object({ id: z.string().min(1).max(256) });

const inputItemsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().optional(),
  include: z.unknown().optional(),
});

const compactBody = z
  .looseObject({
    model: z
      .string()
      .min(1, 'model is required')
      .meta({ description: 'A public model name the key may use.' }),
    input: z
      .union([z.string(), z.array(responsesItem)], {
        error: 'input must be a string or a list of input items',
      })
      .nullish(),
    previous_response_id: z.string().min(1).max(256).nullish(),
  })
  .meta({ id: 'ResponsesCompactRequest', description: 'A conversation to seal into one compaction item.' });

const itemList = z
  .object({
    object: z.literal('list'),
    data: z.array(z.looseObject({ id: z.string(), type: z.string() })),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  })
  .meta({
    id: 'ResponseInputItemList',
    description: 'Input items of a stored response (OpenAI list format).',
  });

const deleted = z
  .object({ id: z.string(), object: z.literal('response'), deleted: z.literal(true) })
  .meta({ id: 'DeletedResponse' });

const compacted = z
  .object({
    id: z.string(),
    object: z.literal('response.compaction'),
    created_at: z.number().int(),
    output: z.array(
      z.object({
        type: z.literal('compaction'),
        id: z.string(),
        encrypted_content: z.string().meta({
          description:
            'The conversation, sealed (purpose `responses-capsule`); send the item back in `input`.',
        }),
      }),
    ),
    usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number() }),
  })
  .meta({ id: 'CompactedResponse', description: 'One compaction item holding the whole conversation.' });

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', { message: `Response with id '${id}' not found.` });
}

async function storedOf(store: ResponseStateStore, id: string, viewer: Principal) {
  const stored = await store.find(id, viewer);
  if (stored === null) throw notFound(id);
  return stored;
}

export function registerResponsesRoutes(
  scope: FastifyInstance,
  docs: OpenApiRegistry,
  deps: ResponsesRoutesDeps,
): void {
  const { store } = deps;
  scope.get('/responses/:id', async (request) => {
    const { id } = idParams.parse(request.params);
    return (await storedOf(store, id, request.principal)).response;
  });
  scope.delete('/responses/:id', async (request) => {
    const { id } = idParams.parse(request.params);
    if (!(await store.delete(id, request.principal))) throw notFound(id);
    return { id, object: 'response', deleted: true };
  });
  scope.get('/responses/:id/input_items', async (request) => {
    const { id } = idParams.parse(request.params);
    const query = inputItemsQuery.parse(request.query);
    const stored = await storedOf(store, id, request.principal);
    return page(listedItems(id, stored.input), query);
  });
  documentStateRoutes(docs);
  const compactor = deps.compactor;
  if (compactor === null) return;
  scope.post('/responses/compact', async (request) => {
    const body = compactBody.parse(request.body);
    checkModel(deps.directory, request.principal, body.model);
    return compactor.compact(body, request.principal);
  });
  documentCompactRoute(docs);
}

/** The key's scope and the model's existence, as for an inference call on the model. */
function checkModel(directory: ModelSource, principal: Principal, model: string): void {
  if (!mayUseModel(principal, model)) throw new GatewayError('model_not_allowed', { param: 'model' });
  if (!directory.deploymentsOf(model).some((deployment) => deployment.enabled)) {
    throw new GatewayError('model_not_found', { param: 'model' });
  }
}

/** OpenAI's list pagination: `after` is the id of the last item of the previous page, in `order`. */
function page(items: ConversationItem[], query: z.infer<typeof inputItemsQuery>) {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (query.after !== undefined) {
    const index = ordered.findIndex((item) => item.id === query.after);
    if (index === -1) {
      throw new GatewayError('invalid_request', {
        param: 'after',
        message: `No input item with id '${query.after}' in this response.`,
      });
    }
    start = index + 1;
  }
  const data = ordered.slice(start, start + query.limit);
  return {
    object: 'list' as const,
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: start + data.length < ordered.length,
  };
}

const notFoundDoc = {
  description: "`not_found`: no such response, or it expired, was deleted, or is another key's.",
};

function documentStateRoutes(docs: OpenApiRegistry): void {
  const common = { tags: ['inference'], security: INFERENCE_SECURITY, requestParams: { path: idParams } };
  docs.add({
    method: 'get',
    path: '/v1/responses/{id}',
    operation: {
      ...common,
      summary: 'A stored response (store: true), as it was answered',
      responses: {
        200: { description: 'The response object.' },
        404: notFoundDoc,
        default: { description: 'An error in the OpenAI shape.' },
      },
    },
  });
  docs.add({
    method: 'delete',
    path: '/v1/responses/{id}',
    operation: {
      ...common,
      summary: 'Deletes a stored response before it expires',
      responses: {
        200: { description: 'Deleted.', content: { 'application/json': { schema: deleted } } },
        404: notFoundDoc,
        default: { description: 'An error in the OpenAI shape.' },
      },
    },
  });
  docs.add({
    method: 'get',
    path: '/v1/responses/{id}/input_items',
    operation: {
      ...common,
      summary: 'The input items of a stored response: the whole conversation it was asked',
      requestParams: { path: idParams, query: inputItemsQuery },
      responses: {
        200: { description: 'One page of items.', content: { 'application/json': { schema: itemList } } },
        400: {
          description:
            '`invalid_request`: a bad `limit` or `order`, or an `after` that is not an item of the list.',
        },
        404: notFoundDoc,
        default: { description: 'An error in the OpenAI shape.' },
      },
    },
  });
}

function documentCompactRoute(docs: OpenApiRegistry): void {
  docs.add({
    method: 'post',
    path: '/v1/responses/compact',
    operation: {
      summary: 'Seals a conversation into a compaction item (variant B); nothing is stored',
      tags: ['inference'],
      security: INFERENCE_SECURITY,
      requestBody: { required: true, content: { 'application/json': { schema: compactBody } } },
      responses: {
        200: { description: 'The compaction.', content: { 'application/json': { schema: compacted } } },
        400: {
          description:
            '`invalid_request`: a bad body, or a compaction item in `input` that cannot be opened.',
        },
        403: { description: '`model_not_allowed`.' },
        404: { description: '`model_not_found`, or `previous_response_not_found`.' },
        default: { description: 'An error in the OpenAI shape.' },
      },
    },
  });
}
