/**
 * The conversation a stored response continues: items in the Responses input format, as the
 * gateway sends them upstream. A stored response ends a conversation made of its input items
 * (the earlier turns' items included) followed by its output items; `instructions` are not part of
 * it (OpenAI API reference, `previous_response_id`: the previous instructions are not carried over).
 */
import { randomBytes } from 'node:crypto';
import { isRecord } from '../formats/json.ts';

/** One Responses input or output item (message, function_call, reasoning, ...), as JSON. */
export type ConversationItem = Record<string, unknown>;

/** What a stored response holds: the conversation it was asked and the response object it answered. */
export interface StoredConversation {
  input: ConversationItem[];
  response: Record<string, unknown>;
}

/** A new response id: the gateway's own, unique across providers and replicas. */
export function newResponseId(): string {
  return `resp_${randomBytes(24).toString('hex')}`;
}

/** A new item id with `prefix` (`cmp`: a compaction item). */
export function newItemId(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}

/** The items of a request's `input`: a string is one user message. */
export function inputItems(input: unknown): ConversationItem[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input.filter(isRecord) : [];
}

/** The output items of a response object. */
export function outputItems(response: Record<string, unknown>): ConversationItem[] {
  return Array.isArray(response.output) ? response.output.filter(isRecord) : [];
}

/** The conversation that continues from a stored response: its input, then its output. */
export function continuationOf(stored: StoredConversation): ConversationItem[] {
  return [...stored.input, ...outputItems(stored.response)];
}
