/**
 * A cached Chat Completions answer replayed as its chunks (API reference, "The chat completion
 * chunk object"), for ClientFormat.replay (index.ts).
 */

import { isRecord, type Json } from '../json.ts';
import type { StreamEvent } from '../stream-event.ts';
import { type ChatChoice, chunkIdentityOf, onlyChatAnswerFields } from './answer-fields.ts';
import { type ChatChunkDelta, ChatChunkWriter } from './chunks.ts';
import {
  type ChatFinishReason,
  type ChatUsage,
  chatCompletionSchema,
  type UpstreamChatCompletion,
} from './wire.ts';

/** A chunk delta as OpenAI streams it: the writer's fields, and the text of a refusal. */
type ReplayDelta = ChatChunkDelta & { refusal?: string };

export function replayChatCompletion(answer: unknown, request: Readonly<Json>): StreamEvent[] | null {
  if (!chatCompletionSchema.safeParse(answer).success) return null;
  // The stored answer itself, not zod's copy: the chunks pass its values on as they are.
  const completion = answer as UpstreamChatCompletion;
  if (!completion.choices.every(isReplayable)) return null;
  const writer = new ChatChunkWriter({
    id: completion.id,
    created: completion.created,
    model: completion.model,
    includeUsage: asksForUsage(request),
  });
  const events = completion.choices.flatMap((choice) => choiceChunks(writer, choice));
  // ChatUsage is the usage the gateway writes; a stored upstream answer's own usage passes as it came.
  events.push(...writer.close((completion.usage ?? null) as ChatUsage | null));
  return withChunkIdentity(events, completion);
}

/**
 * One choice's chunks as OpenAI streams them: the role first (with empty content), then the
 * reasoning (which a reasoning server streams before the answer), the text, the refusal and each
 * tool call whole, then the finish reason on an empty delta.
 */
function choiceChunks(writer: ChatChunkWriter, choice: ChatChoice): StreamEvent[] {
  const { content, refusal, tool_calls: toolCalls, reasoning_content: reasoning } = choice.message;
  const deltas: ReplayDelta[] = [{ role: 'assistant', content: '' }];
  if (reasoning) deltas.push({ reasoning_content: reasoning });
  if (content) deltas.push({ content });
  if (refusal) deltas.push({ refusal });
  for (const [index, call] of (toolCalls ?? []).entries()) {
    const { name, arguments: args } = call.function;
    deltas.push({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name, arguments: args } }],
    });
  }
  const chunks = deltas.map((delta) => writer.chunk(choice.index, delta));
  // An upstream's finish reason beyond the four the gateway writes (e.g. `function_call`) passes on.
  chunks.push(writer.chunk(choice.index, {}, choice.finish_reason as ChatFinishReason | null));
  return chunks;
}

function isReplayable(choice: ChatChoice): boolean {
  if (choice.logprobs != null) return false;
  return onlyChatAnswerFields(choice.message);
}

/** `stream_options.include_usage` of the streamed request (the cache key leaves stream_options out). */
function asksForUsage(request: Readonly<Json>): boolean {
  const options = request.stream_options;
  return isRecord(options) && options.include_usage === true;
}

/** Adds the identity fields the writer does not know to every chunk (not to `[DONE]`). */
function withChunkIdentity(events: StreamEvent[], completion: UpstreamChatCompletion): StreamEvent[] {
  const identity = chunkIdentityOf(completion);
  if (Object.keys(identity).length === 0) return events;
  return events.map((event) => (isRecord(event.data) ? { data: { ...event.data, ...identity } } : event));
}
