/**
 * The Messages request body (Anthropic API reference, "Messages"), validated at the edge: the
 * messages, content blocks, system, tools and tool choice the translator and adapter read. Loose objects.
 */
import { z } from 'zod';
import {
  count,
  jsonObject,
  listOf,
  model,
  requireFor,
  stream,
  text,
  toolList,
} from '../body-schema-parts.ts';

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

const anthropicMessage = z.looseObject({
  role: text,
  content: z.union([text, listOf(anthropicBlock, 'content')], {
    error: 'content must be a string or a list of content blocks',
  }),
});

const anthropicSystem = z.union([text, listOf(anthropicTextBlock, 'system')], {
  error: 'system must be a string or a list of text blocks',
});

const anthropicTool = z.looseObject({
  name: text,
  description: text.optional(),
  input_schema: jsonObject.optional(),
});

const anthropicToolChoice = z.looseObject({ type: text, name: text.optional() });

export const messagesBody = z
  .looseObject({
    model,
    stream,
    max_tokens: count,
    messages: z.array(anthropicMessage).min(1, 'messages must have at least one message'),
    system: anthropicSystem.optional(),
    tools: toolList(anthropicTool),
    tool_choice: anthropicToolChoice.optional(),
  })
  .meta({ id: 'MessagesRequest', description: 'Anthropic Messages request.' });
