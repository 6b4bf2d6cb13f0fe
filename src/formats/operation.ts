/**
 * The operations the gateway serves: the vocabulary every layer above the formats shares (routes,
 * pipeline, providers, limits, records). It lives with the client wire formats because an
 * operation is what a client asks for; the adapter contract (`providers/types.ts`) re-exports it.
 */
export const OPERATIONS = [
  'chat.completions',
  'responses',
  'embeddings',
  'images.generations',
  'images.edits',
  'images.variations',
  'audio.transcriptions',
  'messages',
] as const;
export type Operation = (typeof OPERATIONS)[number];
