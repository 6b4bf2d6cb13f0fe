/**
 * The Responses request body (OpenAI API reference, "Responses": create), validated at the edge:
 * the input items, content parts, tools and tool choices the translator reads. Loose objects.
 *
 * Each input item is checked by its `type`, so a field one item type defines is judged only on
 * that type: a reasoning item's `content` is a list of reasoning text or `null` (Codex echoes
 * `"content": null` back), a message's is its text or parts. An error names the failing item
 * (`input.3.content`), not the whole `input`.
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

/** A tool's output: text, or a list of input parts (text, images, files). */
const toolOutput = z.union([text, listOf(z.looseObject({ type: text }), 'output')], {
  error: 'output must be a string or a list of content parts',
});

/** The fields each typed item carries besides `type`; items of other types pass through. */
const ITEM_FIELDS: Readonly<Record<string, z.ZodType>> = {
  message: z.looseObject({ role: text, content: responsesContent }),
  reasoning: z.looseObject({
    summary: listOf(z.looseObject({ type: text, text: text.optional() }), 'summary').optional(),
    content: listOf(z.looseObject({ type: text, text: text.optional() }), 'content').nullish(),
    encrypted_content: text.nullish(),
  }),
  function_call: z.looseObject({ call_id: text, name: text, arguments: text, namespace: text.nullish() }),
  function_call_output: z.looseObject({ call_id: text, output: toolOutput }),
  custom_tool_call: z.looseObject({ call_id: text, name: text, input: text, namespace: text.nullish() }),
  custom_tool_call_output: z.looseObject({ call_id: text, output: toolOutput }),
  item_reference: z.looseObject({ id: text }),
};

/** Checks an item against its type's fields; issues keep their path inside the item. */
function checkItemFields(item: { type?: string; role?: string }, ctx: z.core.$RefinementCtx): void {
  const type = item.type ?? (item.role === undefined ? undefined : 'message');
  const fields = type === undefined ? undefined : ITEM_FIELDS[type];
  if (fields === undefined) return;
  const result = fields.safeParse(item);
  if (result.success) return;
  for (const issue of result.error.issues) {
    const missing = issue.code === 'invalid_type' && issue.input == null && issue.path.length === 1;
    const message = missing ? `${String(issue.path[0])} is required for type ${type}` : issue.message;
    ctx.addIssue({ code: 'custom', message, path: issue.path, input: issue.input });
  }
}

/** A Responses input item: a typed item, or a message by its role. */
export const responsesItem = z
  .looseObject({ type: text.optional(), role: text.optional() })
  .refine((item) => item.type !== undefined || item.role !== undefined, {
    error: 'an input item needs a type or a role',
  })
  .superRefine(checkItemFields);

const responsesTool = z
  .looseObject({ type: text, name: text.optional(), parameters: jsonObject.nullish() })
  .superRefine(requireFor('function', ['name']))
  .superRefine(requireFor('custom', ['name']))
  .superRefine(requireFor('namespace', ['name', 'tools']));

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
