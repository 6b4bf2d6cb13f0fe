/**
 * What replay (replay.ts) and assembly (assembly.ts) agree on about
 * a chat answer: its choice type, the message (and chunk delta) fields carried between a plain
 * answer and its stream, and the answer fields every chunk repeats.
 */

import type { Json } from '../json.ts';
import type { UpstreamChatCompletion } from './wire.ts';

export type ChatChoice = UpstreamChatCompletion['choices'][number];

/**
 * The message fields a replay carries, which are the delta fields assembly reads. A choice with
 * another (audio, annotations, a vendor's reasoning_content) or with logprobs is not replayed: the
 * client would get the answer without it. A stream with another is not assembled: the field would
 * be missing from the stored answer, so such a stream is not stored.
 */
const CHAT_ANSWER_FIELDS: ReadonlySet<string> = new Set(['role', 'content', 'refusal', 'tool_calls']);

/** Answer fields OpenAI repeats on every chunk besides id, created and model (the writer's identity). */
const CHUNK_IDENTITY_FIELDS = ['service_tier', 'system_fingerprint'] as const;

/** Whether a message or a delta has no field with a value beyond CHAT_ANSWER_FIELDS. */
export function onlyChatAnswerFields(fields: object): boolean {
  return Object.entries(fields).every(([field, value]) => CHAT_ANSWER_FIELDS.has(field) || isEmpty(value));
}

/** null, or an empty array (OpenAI's `annotations: []`): a field that says nothing. */
function isEmpty(value: unknown): boolean {
  return value == null || (Array.isArray(value) && value.length === 0);
}

/** The CHUNK_IDENTITY_FIELDS of an answer or a chunk, those it has (not undefined). */
export function chunkIdentityOf(source: Readonly<Json>): Json {
  const identity: Json = {};
  for (const field of CHUNK_IDENTITY_FIELDS) {
    if (source[field] !== undefined) identity[field] = source[field];
  }
  return identity;
}
