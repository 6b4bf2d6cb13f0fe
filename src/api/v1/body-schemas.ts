/**
 * The request bodies of the inference endpoints, validated at the edge, so no stage below sees an unchecked shape. Loose
 * objects: they check the fields the gateway itself needs and pass the rest of the wire format
 * through to the adapter, which refuses what its upstream cannot take. The same schemas document
 * the bodies in /openapi.json.
 */
import { z } from 'zod';

const model = z.string().min(1, 'model is required').meta({ description: 'A public model name.' });
const stream = z.boolean().nullish();
const part = z.looseObject({ type: z.string() });
/** Message content as both wire formats take it: text, or a list of typed parts. */
const content = z.union([z.string(), z.array(part)], {
  error: 'content must be a string or a list of content parts',
});
/** Tools are a list of objects; `null` is refused like any other non-list (the translators need a list). */
const toolList = <T extends z.ZodType>(tool: T) =>
  z.array(tool, { error: 'tools must be a list of tools' }).optional();

/**
 * A Chat Completions message: content may be left out (or null) only by an assistant message,
 * which carries tool calls instead (OpenAI's own rule).
 */
const chatMessage = z
  .looseObject({ role: z.string(), content: content.nullish() })
  .refine((m) => m.role === 'assistant' || (m.content !== undefined && m.content !== null), {
    error: 'content is required',
    path: ['content'],
  });
const anthropicMessage = z.looseObject({ role: z.string(), content });
/** A Responses input item: a typed item, or a message by its role. */
const responsesItem = z
  .looseObject({ type: z.string().optional(), role: z.string().optional(), content: content.optional() })
  .refine((item) => item.type !== undefined || item.role !== undefined, {
    error: 'an input item needs a type or a role',
  })
  .refine((item) => item.role === undefined || item.content !== undefined, {
    error: 'content is required',
    path: ['content'],
  });
const count = z.number().int('expected an integer').positive('expected a positive integer');

export const chatCompletionsBody = z
  .looseObject({
    model,
    stream,
    messages: z.array(chatMessage).min(1, 'messages must have at least one message'),
    tools: toolList(
      z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }).optional() }),
    ),
  })
  .meta({ id: 'ChatCompletionsRequest', description: 'OpenAI Chat Completions request.' });

export const responsesBody = z
  .looseObject({
    model,
    stream,
    input: z.union([z.string(), z.array(responsesItem)], {
      error: 'input must be a string or a list of input items',
    }),
    tools: toolList(z.looseObject({ type: z.string() })),
    store: z.boolean().nullish().meta({
      description:
        'Stored response state is not available yet: `true` is accepted and served as `false` (nothing is stored).',
    }),
    previous_response_id: z
      .null({
        error: 'continuing a stored response is not available yet: send the whole conversation in input',
      })
      .optional()
      .meta({ description: 'Not available yet: a value is answered 400 `invalid_request`.' }),
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
    system: z
      .union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string() }))], {
        error: 'system must be a string or a list of text blocks',
      })
      .optional(),
    tools: toolList(z.looseObject({ name: z.string() })),
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
