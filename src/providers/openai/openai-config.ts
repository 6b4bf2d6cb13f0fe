import { z } from 'zod';
import type { Operation } from '../types.ts';

/** OpenAI API reference, "Introduction": every path below hangs off this base. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The path of each operation OpenAI serves, relative to the base URL. */
export const OPENAI_PATHS = Object.freeze({
  'chat.completions': '/chat/completions',
  responses: '/responses',
  embeddings: '/embeddings',
  'images.generations': '/images/generations',
  'images.edits': '/images/edits',
  'images.variations': '/images/variations',
  'audio.transcriptions': '/audio/transcriptions',
} as const satisfies Partial<Record<Operation, string>>);

export type OpenAIOperation = keyof typeof OPENAI_PATHS;

/**
 * `providerOptions` of an `openai` deployment: the organization and project headers of the API
 * reference ("Authentication"), for keys that belong to several.
 */
export const openAIProviderOptionsSchema = z.object({
  organization: z.string().min(1).optional(),
  project: z.string().min(1).optional(),
});
