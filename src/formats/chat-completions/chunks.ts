/**
 * The `chat.completion.chunk` events (API reference, "The chat completion chunk object"): written
 * for a stream converted from another format (ChatChunkWriter), and read for the text they carry
 * (streamedText), whichever upstream wrote them.
 */
import { isRecord, type Json } from '../json.ts';
import { SSE_DONE } from '../sse.ts';
import type { StreamEvent } from '../stream-event.ts';
import type { ChatCompletionIdentity } from './identity.ts';
import type { ChatCompletionChunk, ChatFinishReason, ChatLogprobs, ChatUsage } from './wire.ts';

export interface ChatChunkWriterOptions extends ChatCompletionIdentity {
  /** The client asked for the closing usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
}

export type ChatChunkDelta = ChatCompletionChunk['choices'][number]['delta'];

/**
 * Writes the `chat.completion.chunk` events of a stream converted from another format (API
 * reference, "The chat completion chunk object"): every chunk carries the answer's identity, and
 * `usage: null` when the client asked for the usage chunk, which closes the stream before `[DONE]`.
 */
export class ChatChunkWriter {
  readonly #options: ChatChunkWriterOptions;

  constructor(options: ChatChunkWriterOptions) {
    this.#options = options;
  }

  /** A chunk of one choice. */
  chunk(
    index: number,
    delta: ChatChunkDelta,
    finishReason: ChatFinishReason | null = null,
    logprobs: ChatLogprobs | null = null,
  ): StreamEvent<ChatCompletionChunk> {
    const chunk: ChatCompletionChunk = {
      ...this.#base(),
      choices: [{ index, delta, logprobs, finish_reason: finishReason }],
    };
    return { data: chunk };
  }

  /** The finishing chunk of one choice, with the stop sequence it matched when known (wire.ts, `stop_reason`). */
  finish(
    index: number,
    finishReason: ChatFinishReason,
    stopSequence?: string,
  ): StreamEvent<ChatCompletionChunk> {
    const event = this.chunk(index, {}, finishReason);
    if (stopSequence !== undefined) event.data.choices[0].stop_reason = stopSequence;
    return event;
  }

  /** The end of the stream: the usage chunk when asked for (and known), then `[DONE]`. */
  close(usage: ChatUsage | null): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (this.#options.includeUsage && usage) {
      events.push({ data: { ...this.#base(), choices: [], usage } satisfies ChatCompletionChunk });
    }
    events.push({ data: SSE_DONE });
    return events;
  }

  #base(): Omit<ChatCompletionChunk, 'choices'> {
    return {
      id: this.#options.id,
      object: 'chat.completion.chunk',
      created: this.#options.created,
      model: this.#options.model,
      ...(this.#options.includeUsage ? { usage: null } : {}),
    };
  }
}

/** Generated text of one chat chunk: content, refusal, reasoning and tool-call deltas. */
export function streamedText(data: Readonly<Json>, texts: string[]): void {
  if (!Array.isArray(data.choices)) return;
  for (const choice of data.choices) {
    const delta = isRecord(choice) ? choice.delta : undefined;
    if (!isRecord(delta)) continue;
    for (const field of ['content', 'refusal', 'reasoning_content', 'reasoning']) {
      const text = delta[field];
      if (typeof text === 'string') texts.push(text);
    }
    if (!Array.isArray(delta.tool_calls)) continue;
    for (const call of delta.tool_calls) {
      const fn = isRecord(call) ? call.function : undefined;
      if (isRecord(fn) && typeof fn.arguments === 'string') texts.push(fn.arguments);
    }
  }
}
