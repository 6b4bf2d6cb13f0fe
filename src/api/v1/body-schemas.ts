/**
 * The request bodies of the inference endpoints, validated at the edge, so no stage below sees an unchecked shape. Loose
 * objects: they check the fields the gateway itself needs and pass the rest of the wire format
 * through to the adapter, which refuses what its upstream cannot take. The same schemas document
 * the bodies in /openapi.json.
 */
import { z } from 'zod';
import {
  anthropicMessage,
  anthropicSystem,
  anthropicTool,
  anthropicToolChoice,
  chatMessage,
  chatResponseFormat,
  chatTool,
  chatToolChoice,
  listOf,
  responsesItem,
  responsesTool,
  responsesToolChoice,
} from './message-schemas.ts';

const model = z.string().min(1, 'model is required').meta({ description: 'A public model name.' });
const stream = z.boolean().nullish();
/** Tools are a list of objects; `null` is refused like any other non-list (the translators need a list). */
const toolList = <T extends z.ZodType>(tool: T) => listOf(tool, 'tools').optional();
const count = z.number().int('expected an integer').positive('expected a positive integer');

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

export const embeddingsBody = z
  .looseObject({
    model,
    input: z.union(
      [
        z.string(),
        z.array(z.union([z.string(), z.number().int(), z.array(z.number().int())])).min(1, 'input is empty'),
      ],
      { error: 'input must be a string, a list of strings, or token ids' },
    ),
  })
  .meta({ id: 'EmbeddingsRequest', description: 'OpenAI Embeddings request.' });

export const imageGenerationsBody = z
  .looseObject({
    model,
    stream,
    prompt: z.string().min(1, 'prompt is required'),
    n: count.nullish(),
  })
  .meta({ id: 'ImageGenerationRequest', description: 'OpenAI image generation request.' });

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

/**
 * Multipart text fields arrive as strings: numbers and booleans are coerced, so that operation
 * profiles (`n: { min, max }`) and the stream check see values, not text.
 */
const formCount = z.coerce.number().int('expected an integer').positive('expected a positive integer');
const formNumber = z.coerce.number();
const formBoolean = z.stringbool();

/** The text fields of image edits and variations (files are not fields). */
export const imageFormFields = z.looseObject({
  model,
  stream: formBoolean.optional(),
  n: formCount.optional(),
});

/** The text fields of audio transcriptions. */
export const transcriptionFormFields = z.looseObject({
  model,
  stream: formBoolean.optional(),
  temperature: formNumber.optional(),
});

const file = (description: string) => z.string().meta({ format: 'binary', description });

export const imageEditsForm = z
  .looseObject({
    model,
    image: file('The image (or `image[]`, several) to edit.'),
    prompt: z.string(),
    mask: file('Optional mask.').optional(),
    n: z.number().int().optional(),
  })
  .meta({ id: 'ImageEditRequest', description: 'OpenAI image edit request (multipart/form-data).' });

export const imageVariationsForm = z
  .looseObject({ model, image: file('The image to vary.'), n: z.number().int().optional() })
  .meta({
    id: 'ImageVariationRequest',
    description: 'OpenAI image variation request (multipart/form-data).',
  });

export const transcriptionForm = z
  .looseObject({
    model,
    file: file('The audio file.'),
    response_format: z
      .string()
      .optional()
      .meta({ description: 'json (default), text, srt, verbose_json, vtt.' }),
  })
  .meta({
    id: 'TranscriptionRequest',
    description: 'OpenAI audio transcription request (multipart/form-data).',
  });
