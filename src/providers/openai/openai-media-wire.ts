/**
 * Answers of the embeddings, images and audio operations (API reference: "Embeddings", "Images",
 * "Audio"), validated loosely.
 */
import { z } from 'zod';

export const embeddingsResponseSchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(
    z.looseObject({
      index: z.number(),
      // An array of floats, or a base64 string when encoding_format is base64.
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
  model: z.string(),
  usage: z.looseObject({ prompt_tokens: z.number(), total_tokens: z.number() }).nullish(),
});
export type EmbeddingsResponse = z.infer<typeof embeddingsResponseSchema>;

/** gpt-image models report token usage; dall-e models do not. */
export const imagesResponseSchema = z.looseObject({
  created: z.number(),
  data: z
    .array(
      z.looseObject({
        b64_json: z.string().nullish(),
        url: z.string().nullish(),
        revised_prompt: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .looseObject({
      input_tokens: z.number(),
      output_tokens: z.number(),
      total_tokens: z.number().nullish(),
      input_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});
export type ImagesResponse = z.infer<typeof imagesResponseSchema>;

/**
 * A transcription as JSON (`json` or `verbose_json`). Usage is tokens for gpt-4o transcribe
 * models and a duration for whisper-1; verbose_json also carries `duration` in seconds.
 */
export const transcriptionResponseSchema = z.looseObject({
  text: z.string(),
  duration: z.number().nullish(),
  usage: z
    .union([
      z.looseObject({
        type: z.literal('tokens'),
        input_tokens: z.number(),
        output_tokens: z.number(),
        total_tokens: z.number().nullish(),
      }),
      z.looseObject({ type: z.literal('duration'), seconds: z.number() }),
    ])
    .nullish(),
});
export type TranscriptionResponse = z.infer<typeof transcriptionResponseSchema>;
