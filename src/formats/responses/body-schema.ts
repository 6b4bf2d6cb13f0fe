/**
 * The Responses request body (OpenAI API reference, "Responses": create), validated at the edge:
 * the input items, content parts, tools and tool choices the translator reads. Loose objects.
 */
import { z } from 'zod';
import { jsonObject, listOf, model, requireFor, stream, text, toolList } from '../body-schema-parts.ts';

const responsesPart = z
  .looseObject({ type: text, text: text.optional(), image_url: text.optional(), file_id: text.optional() })
  .superRefine(requireFor('input_text', ['text']))
  .superRefine(requireFor('output_text', ['text']));

const responsesContent = z.union([text, listOf(responsesPart, 'content')], {
  error: 'content must be a string or a list of content parts',
});

/** A Responses input item: a typed item, or a message by its role. */
export const responsesItem = z
  .looseObject({
    type: text.optional(),
    role: text.optional(),
    content: responsesContent.optional(),
    call_id: text.optional(),
    name: text.optional(),
    arguments: text.optional(),
    output: z.union([text, z.array(z.looseObject({ type: text }))]).optional(),
  })
  .refine((item) => item.type !== undefined || item.role !== undefined, {
    error: 'an input item needs a type or a role',
  })
  .refine((item) => item.role === undefined || item.content !== undefined, {
    error: 'content is required',
    path: ['content'],
  })
  .superRefine(requireFor('function_call', ['call_id', 'name', 'arguments']))
  .superRefine(requireFor('function_call_output', ['call_id', 'output']));

const responsesTool = z.looseObject({
  type: text,
  name: text.optional(),
  parameters: jsonObject.nullish(),
});

const responsesToolChoice = z.union([text, z.looseObject({ type: text, name: text.optional() })], {
  error: 'tool_choice must be a string or an object',
});

export const responsesBody = z
  .looseObject({
    model,
    stream,
    input: z.union([z.string(), z.array(responsesItem)], {
      error: 'input must be a string or a list of input items',
    }),
    tools: toolList(responsesTool),
    tool_choice: responsesToolChoice.optional(),
    instructions: z.string().nullish(),
    store: z.boolean().nullish().meta({
      description:
        'Whether the gateway stores the response (absent: true, or RESPONSES_STORE_DEFAULT). Upstreams are always called with `store: false` and the whole conversation.',
    }),
    previous_response_id: z
      .string()
      .min(1, 'previous_response_id is empty')
      .max(256, 'previous_response_id is longer than 256 characters')
      .nullish()
      .meta({
        description:
          "A stored response of the calling key to continue from: its conversation (input and output, not its instructions) goes before `input`, on any provider. Unknown, expired, deleted or another key's: 404 `previous_response_not_found`.",
      }),
  })
  .meta({ id: 'ResponsesRequest', description: 'OpenAI Responses request.' });
