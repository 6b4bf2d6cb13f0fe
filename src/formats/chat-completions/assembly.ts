/**
 * The Chat Completions assembler: chunks merged by choice index and tool-call index, as OpenAI's
 * SDKs do, into the `chat.completion` a plain call would have received.
 */

import type { Json } from '../json.ts';
import { isRecord } from '../json.ts';
import { SSE_DONE } from '../sse.ts';
import { openIf, type Progress, StreamAssembler } from '../stream-assembler.ts';
import type { StreamEvent } from '../stream-event.ts';
import type { Usage } from '../usage.ts';
import { type ChatChoice, chunkIdentityOf, onlyChatAnswerFields } from './answer-fields.ts';
import { chatUsageOf } from './usage.ts';
import { chatCompletionChunkSchema, type UpstreamChatCompletion, type UpstreamChatUsage } from './wire.ts';

type ChatToolCall = NonNullable<ChatChoice['message']['tool_calls']>[number];

/** The answer's identity, which every chunk repeats. */
interface ChatIdentity {
  id: string;
  created: number;
  model: string;
  /** service_tier and system_fingerprint, when the chunks carry them. */
  rest: Json;
}

interface ToolCallDraft {
  id: string | null;
  name: string;
  arguments: string;
}

interface ChoiceDraft {
  content: string;
  refusal: string;
  toolCalls: Map<number, ToolCallDraft>;
  finishReason: string | null;
}

const usageSchema = chatCompletionChunkSchema.shape.usage;

/** The usage chunk's object, else the decoder's count: a plain call's answer always has usage. */
function usageField(sent: UpstreamChatUsage | null, read: Usage | null): { usage?: UpstreamChatUsage } {
  if (sent !== null) return { usage: sent };
  return read === null ? {} : { usage: { ...chatUsageOf(read) } };
}

export class ChatCompletionAssembler extends StreamAssembler {
  #identity: ChatIdentity | null = null;
  readonly #choices = new Map<number, ChoiceDraft>();
  #usage: UpstreamChatUsage | null = null;

  protected apply(event: StreamEvent): Progress {
    // [DONE] ends the stream; whether every choice finished is build()'s question.
    if (event.data === SSE_DONE) return 'complete';
    const chunk = event.data;
    // The gateway's own error event (`{ error }`) is not a chunk either.
    if (!isRecord(chunk) || chunk.object !== 'chat.completion.chunk' || !Array.isArray(chunk.choices))
      return 'failed';
    this.#identity ??= chatIdentity(chunk);
    if (this.#identity === null) return 'failed';
    if (chunk.usage != null) {
      // Once per stream, so the zod check costs nothing worth saving.
      if (!usageSchema.safeParse(chunk.usage).success) return 'failed';
      this.#usage = chunk.usage as UpstreamChatUsage;
    }
    return openIf(chunk.choices.every((choice) => this.#applyChoice(choice)));
  }

  protected build(streamUsage: Usage | null): UpstreamChatCompletion | null {
    const identity = this.#identity;
    if (identity === null || this.#choices.size === 0) return null;
    const choices: ChatChoice[] = [];
    for (const [index, draft] of byKey(this.#choices)) {
      const choice = chatChoice(index, draft);
      if (choice === null) return null;
      choices.push(choice);
    }
    return {
      id: identity.id,
      object: 'chat.completion',
      created: identity.created,
      model: identity.model,
      choices,
      ...usageField(this.#usage, streamUsage),
      ...identity.rest,
    };
  }

  #applyChoice(choice: unknown): boolean {
    if (!isRecord(choice) || typeof choice.index !== 'number' || !isRecord(choice.delta)) return false;
    // Logprobs are not assembled either: a plain call asking for them must not get an answer without.
    if (choice.logprobs != null || !onlyChatAnswerFields(choice.delta)) return false;
    const draft = this.#draft(choice.index);
    const { content, refusal, tool_calls: toolCalls } = choice.delta;
    if (typeof content === 'string') draft.content += content;
    if (typeof refusal === 'string') draft.refusal += refusal;
    if (toolCalls != null) {
      if (!Array.isArray(toolCalls) || !toolCalls.every((call) => applyToolCall(draft, call))) return false;
    }
    if (typeof choice.finish_reason === 'string') draft.finishReason = choice.finish_reason;
    return true;
  }

  #draft(index: number): ChoiceDraft {
    let draft = this.#choices.get(index);
    if (draft === undefined) {
      draft = { content: '', refusal: '', toolCalls: new Map(), finishReason: null };
      this.#choices.set(index, draft);
    }
    return draft;
  }
}

function chatIdentity(chunk: Json): ChatIdentity | null {
  const { id, created, model } = chunk;
  if (typeof id !== 'string' || typeof created !== 'number' || typeof model !== 'string') return null;
  return { id, created, model, rest: chunkIdentityOf(chunk) };
}

/** A tool-call delta: the first names the call, the later ones add to its arguments. */
function applyToolCall(draft: ChoiceDraft, call: unknown): boolean {
  if (!isRecord(call) || typeof call.index !== 'number') return false;
  // Only function calls are assembled: another kind would be stored without what makes it one.
  if (call.type != null && call.type !== 'function') return false;
  let tool = draft.toolCalls.get(call.index);
  if (tool === undefined) {
    tool = { id: null, name: '', arguments: '' };
    draft.toolCalls.set(call.index, tool);
  }
  if (typeof call.id === 'string') tool.id = call.id;
  const fn = call.function;
  if (isRecord(fn)) {
    if (typeof fn.name === 'string' && fn.name !== '') tool.name = fn.name;
    if (typeof fn.arguments === 'string') tool.arguments += fn.arguments;
  }
  return true;
}

/** A finished choice as a plain call gets it; null when it never finished or a tool call has no id. */
function chatChoice(index: number, draft: ChoiceDraft): ChatChoice | null {
  if (draft.finishReason === null) return null;
  const toolCalls: ChatToolCall[] = [];
  for (const [, call] of byKey(draft.toolCalls)) {
    if (call.id === null) return null;
    toolCalls.push({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    });
  }
  const refusal = draft.refusal === '' ? null : draft.refusal;
  // Streams open with `content: ""`; a plain answer of only tool calls or a refusal has null.
  const content = draft.content === '' && (toolCalls.length > 0 || refusal !== null) ? null : draft.content;
  return {
    index,
    message: {
      role: 'assistant',
      content,
      refusal,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    logprobs: null,
    finish_reason: draft.finishReason,
  };
}

/** A map's entries in the order of their numeric keys (choice and tool-call indexes). */
function byKey<Value>(map: ReadonlyMap<number, Value>): Array<[number, Value]> {
  return [...map].sort(([a], [b]) => a - b);
}
