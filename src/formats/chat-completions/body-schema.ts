/**
 * The parts of the inference bodies the translators and adapters read: messages, content parts,
 * tool calls and results, tools and tool choices, in the three wire formats (OpenAI Chat
 * Completions, OpenAI Responses, Anthropic Messages). Each field that is present must have its
 * documented type, and a part or item of a known type must carry the fields that type needs;
 * anything else passes through (loose objects, unknown part types) for the upstream to judge.
 * Checked here, a `null` or a number where a list or a text belongs is a 400 naming the field,
 * not a TypeError in a translator (a 500).
 */
import { z } from 'zod';

const text = z.string();
const jsonObject = z.record(z.string(), z.unknown());

/** `fields` must be present when `type` is `typeName`: the message names the first missing one. */
function requireFor<T extends { type?: string }>(typeName: string, fields: readonly (keyof T & string)[]) {
  return (value: T, ctx: z.core.$RefinementCtx<T>) => {
    if (value.type !== typeName) return;
    for (const field of fields) {
      if (value[field] === undefined || value[field] === null) {
        ctx.addIssue({
          code: 'custom',
          message: `${field} is required for type ${typeName}`,
          path: [field],
        });
        return;
      }
    }
  };
}

/** A list where one is required: `null` is refused like any other non-list. */
export function listOf<T extends z.ZodType>(item: T, what: string) {
  return z.array(item, { error: `${what} must be a list` });
}

// OpenAI Chat Completions.

const chatPart = z
  .looseObject({
    type: text,
    text: text.optional(),
    image_url: z.looseObject({ url: text, detail: text.optional() }).optional(),
    input_audio: z.looseObject({ data: text, format: text }).optional(),
  })
  .superRefine(requireFor('text', ['text']))
  .superRefine(requireFor('image_url', ['image_url']))
  .superRefine(requireFor('input_audio', ['input_audio']));

const chatContent = z.union([text, listOf(chatPart, 'content')], {
  error: 'content must be a string or a list of content parts',
});

const chatToolCall = z.looseObject({
  id: text,
  type: text.optional(),
  function: z.looseObject({ name: text, arguments: text }),
});

/**
 * Content may be left out (or null) only by an assistant message, which carries tool calls
 * instead (OpenAI's own rule); a tool message names the call it answers.
 */
export const chatMessage = z
  .looseObject({
    role: text,
    content: chatContent.nullish(),
    name: text.optional(),
    tool_calls: listOf(chatToolCall, 'tool_calls').nullish(),
    tool_call_id: text.optional(),
    function_call: z.looseObject({ name: text, arguments: text }).nullish(),
  })
  .refine((m) => m.role === 'assistant' || (m.content !== undefined && m.content !== null), {
    error: 'content is required',
    path: ['content'],
  })
  .refine((m) => m.role !== 'tool' || m.tool_call_id !== undefined, {
    error: 'tool_call_id is required',
    path: ['tool_call_id'],
  });

export const chatTool = z
  .looseObject({
    type: text,
    function: z
      .looseObject({ name: text, description: text.optional(), parameters: jsonObject.optional() })
      .optional(),
  })
  .superRefine(requireFor('function', ['function']));

export const chatToolChoice = z.union(
  [text, z.looseObject({ type: text, function: z.looseObject({ name: text }).optional() })],
  { error: 'tool_choice must be a string or an object' },
);

export const chatResponseFormat = z.looseObject({
  type: text,
  json_schema: z.looseObject({ name: text, schema: jsonObject.optional() }).optional(),
});

// OpenAI Responses.

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

export const responsesTool = z.looseObject({
  type: text,
  name: text.optional(),
  parameters: jsonObject.nullish(),
});

export const responsesToolChoice = z.union([text, z.looseObject({ type: text, name: text.optional() })], {
  error: 'tool_choice must be a string or an object',
});

// Anthropic Messages.

const anthropicTextBlock = z.looseObject({ type: text, text });

const anthropicBlock = z
  .looseObject({
    type: text,
    text: text.optional(),
    source: z
      .looseObject({ type: text, media_type: text.optional(), data: text.optional(), url: text.optional() })
      .optional(),
    id: text.optional(),
    name: text.optional(),
    input: jsonObject.optional(),
    tool_use_id: text.optional(),
    content: z
      .union([text, listOf(z.looseObject({ type: text, text: text.optional() }), 'content')])
      .optional(),
  })
  .superRefine(requireFor('text', ['text']))
  .superRefine(requireFor('image', ['source']))
  .superRefine(requireFor('tool_use', ['id', 'name', 'input']))
  .superRefine(requireFor('tool_result', ['tool_use_id']));

export const anthropicMessage = z.looseObject({
  role: text,
  content: z.union([text, listOf(anthropicBlock, 'content')], {
    error: 'content must be a string or a list of content blocks',
  }),
});

export const anthropicSystem = z.union([text, listOf(anthropicTextBlock, 'system')], {
  error: 'system must be a string or a list of text blocks',
});

export const anthropicTool = z.looseObject({
  name: text,
  description: text.optional(),
  input_schema: jsonObject.optional(),
});

export const anthropicToolChoice = z.looseObject({ type: text, name: text.optional() });
