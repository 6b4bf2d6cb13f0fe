/**
 * The request bodies of the inference endpoints that are not a client format of their own
 * (embeddings, images, transcriptions; the formats' are in src/formats/<name>/body-schema.ts),
 * validated at the edge, so no stage below sees an unchecked shape. Loose objects: they check the fields the gateway itself needs and pass the rest of the wire format
 * through to the adapter, which refuses what its upstream cannot take. The same schemas document
 * the bodies in /openapi.json.
 */
import { z } from 'zod';
import { count, model, stream } from '../../formats/body-schema-parts.ts';

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
