import { answerTextWithModel } from '../../formats/answer-text.ts';
import { isPlainChunk } from '../../formats/chat-completions/chunk-guard.ts';
import { usageFromChat } from '../../formats/chat-completions/usage.ts';
import {
  chatCompletionChunkSchema,
  type UpstreamChatCompletionChunk,
} from '../../formats/chat-completions/wire.ts';
import { isRecord } from '../../formats/json.ts';
import { SSE_DONE, UpstreamTextEvent } from '../../formats/sse.ts';
import { SseStreamDecoder, sseJson } from '../shared/sse-stream-decoder.ts';
import { malformedAnswerError, upstreamGatewayError } from '../shared/upstream-error.ts';
import type { ContentFilterHit, SseMessage, StreamEvent, Usage } from '../types.ts';
import { classifyOpenAIStreamError } from './openai-error.ts';
import { readOpenAIError } from './openai-error-wire.ts';

export interface ChatStreamDecoderOptions {
  provider: string;
  /** The model every chunk names (StreamDecoderCall.publicModel). */
  publicModel: string;
  /** Whether the client asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  /**
   * A provider's own chunks made Chat chunks before validation (Azure's content-filter
   * annotations: azure-stream-annotations.ts), or null to drop one. One per decoder: it may keep state.
   */
  normaliseChunk?: ChatChunkNormaliser;
}

/** A provider's own chunks made Chat chunks (Azure's: azure-stream-annotations.ts). */
export interface ChatChunkNormaliser {
  /** Turns an upstream chunk into a Chat chunk, or null when it carries nothing for the client. */
  normalise(data: unknown): unknown;
  /** What the provider's content filter withheld so far (StreamDecoder.contentFilter). */
  contentFilter?(): readonly ContentFilterHit[] | null;
}

/**
 * Chat Completions SSE (API reference, "The chat completion chunk object"): `data:` lines of
 * chunks, ended by `data: [DONE]`. We always ask the upstream for usage; when the client did not,
 * the usage-only chunk is dropped and the `usage: null` the option adds to each chunk removed, so
 * the client sees the stream it asked for.
 */
export class OpenAIChatStreamDecoder extends SseStreamDecoder {
  readonly #includeUsage: boolean;
  readonly #normalise: ChatChunkNormaliser | undefined;
  readonly #publicModel: string;
  #usage: Usage | null = null;

  constructor(options: ChatStreamDecoderOptions) {
    super(options.provider, 'data: [DONE]');
    this.#includeUsage = options.includeUsage;
    this.#normalise = options.normaliseChunk;
    this.#publicModel = options.publicModel;
  }

  override usage(): Usage | null {
    return this.#usage;
  }

  contentFilter(): readonly ContentFilterHit[] | null {
    return this.#normalise?.contentFilter?.() ?? null;
  }

  protected override decode(message: SseMessage): StreamEvent[] {
    if (message.data === SSE_DONE) {
      this.end();
      return [{ data: SSE_DONE }];
    }
    const received = sseJson(message, this.provider);
    const text = isRecord(received) ? this.#upstreamText(message.data, received) : null;
    const event = this.#chunk(received);
    if (event === null) return [];
    return [text !== null && event.data === received ? new UpstreamTextEvent(received, text) : event];
  }

  /**
   * The event's text with the public model, to pass on instead of serialising the chunk again;
   * null when it cannot be (a provider's normaliser rebuilds chunks, a multi-line event would
   * not stay one SSE data line, the model edit is not provably right).
   */
  #upstreamText(data: string, received: Record<string, unknown>): string | null {
    if (this.#normalise !== undefined || data.includes('\n')) return null;
    return answerTextWithModel(data, received, this.#publicModel);
  }

  #chunk(received: unknown): StreamEvent | null {
    const data = this.#normalise === undefined ? received : this.#normalise.normalise(received);
    if (data === null) return null;
    // OpenAI sends {"error": {...}}; vLLM sends {"object": "error", "message": ...}.
    if (
      typeof data === 'object' &&
      data !== null &&
      ('error' in data || ('object' in data && data.object === 'error'))
    ) {
      const detail = readOpenAIError(data);
      throw upstreamGatewayError(classifyOpenAIStreamError(detail.code, detail.message), {
        provider: this.provider,
      });
    }
    // The schema runs only on what the guard cannot prove valid (tool calls, usage, odd shapes).
    if (!isPlainChunk(data)) {
      const parsed = chatCompletionChunkSchema.safeParse(data);
      if (!parsed.success)
        throw malformedAnswerError(this.provider, 'chat.completion.chunk', parsed.error.issues);
      if (parsed.data.usage != null) this.#usage = usageFromChat(parsed.data.usage);
    }
    // Forward what the upstream sent (validated), not zod's copy, so field order is kept.
    const chunk = data as UpstreamChatCompletionChunk;
    chunk.model = this.#publicModel;
    if (this.#includeUsage) return { data: chunk };
    if (chunk.choices.length === 0 && chunk.usage != null) return null;
    if (!('usage' in chunk)) return { data: chunk };
    const { usage: _usage, ...withoutUsage } = chunk;
    return { data: withoutUsage };
  }
}
