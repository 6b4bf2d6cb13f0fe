/**
 * The Chat Completions request body (OpenAI API reference, "Chat Completions": create), validated
 * at the edge: the messages, content parts, tool calls and results, tools and tool choices the
 * translators and adapters read. Loose objects: the rest passes through to the adapter.
 */
import { z } from 'zod';
import { jsonObject, listOf, model, requireFor, stream, text, toolList } from '../body-schema-parts.ts';

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

/** OpenAI's roles; another one is refused here, not left for an adapter to trip on (a 500). */
const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
const chatRole = z.enum(CHAT_ROLES, { error: `role must be one of ${CHAT_ROLES.join(', ')}` });

/**
 * Content may be left out (or null) only by an assistant message, which carries tool calls
 * instead (OpenAI's own rule); a tool message names the call it answers.
 */
const chatMessage = z
  .looseObject({
    role: chatRole,
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

const chatTool = z
  .looseObject({
    type: text,
    function: z
      .looseObject({ name: text, description: text.optional(), parameters: jsonObject.optional() })
      .optional(),
  })
  .superRefine(requireFor('function', ['function']));

const chatToolChoice = z.union(
  [text, z.looseObject({ type: text, function: z.looseObject({ name: text }).optional() })],
  { error: 'tool_choice must be a string or an object' },
);

const chatResponseFormat = z.looseObject({
  type: text,
  json_schema: z.looseObject({ name: text, schema: jsonObject.optional() }).optional(),
});

export const chatCompletionsBody = z
  .looseObject({
    model,
    stream,
    messages: z.array(chatMessage).min(1, 'messages must have at least one message'),
    tools: toolList(chatTool),
    tool_choice: chatToolChoice.optional(),
    response_format: chatResponseFormat.optional(),
  })
  .meta({ id: 'ChatCompletionsRequest', description: 'OpenAI Chat Completions request.' });
