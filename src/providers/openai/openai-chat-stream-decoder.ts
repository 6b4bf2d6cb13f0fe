import { answerTextWithModel } from '../../formats/answer-text.ts';
import { isPlainChunk } from '../../formats/chat-completions/chunk-guard.ts';
import { readChunkText } from '../../formats/chat-completions/chunk-text.ts';
import { usageFromChat } from '../../formats/chat-completions/usage.ts';
import {
  chatCompletionChunkSchema,
  type UpstreamChatCompletionChunk,
} from '../../formats/chat-completions/wire.ts';
import { isRecord } from '../../formats/json.ts';
import { SSE_DONE, UnparsedEvent, UpstreamTextEvent } from '../../formats/sse.ts';
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
   * Whether the events go to the client as they are (StreamDecoderCall.passedOn): common chunks
   * are then passed on unparsed, and the others as the upstream's text. Absent, a translator
   * reads them: every chunk is parsed and checked, and nothing keeps its text.
   */
  passedOn?: boolean;
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
  readonly #passedOn: boolean;
  readonly #writtenPublicModel: string;
  /** The upstream's model as the first chunk parsed wrote it (a JSON literal); null before one. */
  #writtenModel: string | null = null;
  #usage: Usage | null = null;

  constructor(options: ChatStreamDecoderOptions) {
    super(options.provider, 'data: [DONE]');
    this.#includeUsage = options.includeUsage;
    this.#normalise = options.normaliseChunk;
    this.#publicModel = options.publicModel;
    this.#passedOn = options.passedOn === true;
    this.#writtenPublicModel = JSON.stringify(options.publicModel);
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
    const passed = this.#unparsed(message.data);
    if (passed !== null) return [passed];
    const received = sseJson(message, this.provider);
    const text = isRecord(received) ? this.#upstreamText(message.data, received) : null;
    const upstreamModel = isRecord(received) ? received.model : undefined;
    const event = this.#chunk(received);
    // Kept once #chunk accepted the chunk (it throws otherwise); read before it renamed the model.
    if (this.#writtenModel === null && typeof upstreamModel === 'string') {
      this.#writtenModel = JSON.stringify(upstreamModel);
    }
    if (event === null) return [];
    return [text !== null && event.data === received ? new UpstreamTextEvent(received, text) : event];
  }

  /**
   * The event passed on unparsed when its text shows it needs nothing but the model renamed
   * (chunk-text.ts): not an error, no usage, no text but the delta's content. Never the first
   * chunk, which is parsed and checked and names the model later chunks must name; never with a
   * normaliser (it reads every chunk) or for a multi-line event.
   */
  #unparsed(data: string): UnparsedEvent | null {
    if (!this.#passedOn || this.#writtenModel === null || this.#normalise !== undefined) return null;
    if (data.includes('\n')) return null;
    const read = readChunkText(data, {
      writtenModel: this.#writtenModel,
      writtenPublicModel: this.#writtenPublicModel,
      includeUsage: this.#includeUsage,
    });
    return read === null ? null : new UnparsedEvent(read.text, read.generated);
  }

  /**
   * The event's text with the public model, to pass on instead of serialising the chunk again;
   * null when it cannot be or would not be used (a translator reads the chunk, a provider's
   * normaliser rebuilds it, a multi-line event would not stay one SSE data line, the model edit
   * is not provably right).
   */
  #upstreamText(data: string, received: Record<string, unknown>): string | null {
    if (!this.#passedOn || this.#normalise !== undefined || data.includes('\n')) return null;
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
