/**
 * Reading Claude's stream events (API reference, "Streaming messages"), wherever they arrive: as
 * SSE from Anthropic or Vertex AI (AnthropicStreamDecoder), or base64 in the event-stream chunks
 * of Bedrock's InvokeModelWithResponseStream. Input tokens come with message_start, output tokens
 * (cumulative) with message_delta; message_stop ends the stream; an `error` event is raised as a
 * GatewayError so that the provider's wording never reaches the client. Unknown event types pass
 * untouched.
 */
import { isRecord, type Json, setModel } from '../../formats/json.ts';
import { readDeltaText } from '../../formats/messages/delta-text.ts';
import { type AnthropicUsageCounts, usageFromAnthropic } from '../../formats/messages/usage.ts';
import { anthropicStreamEventSchema } from '../../formats/messages/wire.ts';
import { UnparsedEvent } from '../../formats/sse.ts';
import { SseStreamDecoder, sseJson } from '../shared/sse-stream-decoder.ts';
import { malformedAnswerError, upstreamGatewayError } from '../shared/upstream-error.ts';
import type { SseMessage, StreamEvent, Usage } from '../types.ts';
import { classifyAnthropicErrorType } from './anthropic-error.ts';

const KNOWN_EVENTS: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);

export class ClaudeStreamEvents {
  readonly #provider: string;
  readonly #publicModel: string;
  #counts: AnthropicUsageCounts | null = null;
  #ended = false;

  /** `publicModel`: the model message_start names (StreamDecoderCall.publicModel). */
  constructor(provider: string, publicModel: string) {
    this.#provider = provider;
    this.#publicModel = publicModel;
  }

  /** True once message_stop was read. */
  get ended(): boolean {
    return this.#ended;
  }

  usage(): Usage | null {
    return this.#counts === null ? null : usageFromAnthropic(this.#counts);
  }

  /**
   * Reads one event's data and returns its type; throws on an `error` event or a malformed one.
   * message_start is left naming the public model.
   */
  read(data: unknown): string {
    const type = isRecord(data) ? data.type : undefined;
    if (typeof type !== 'string') throw malformedAnswerError(this.#provider, 'stream event', { data });
    if (KNOWN_EVENTS.has(type)) this.#observe(data);
    if (type === 'message_start') setModel((data as Json).message, this.#publicModel);
    return type;
  }

  #observe(data: unknown): void {
    const parsed = anthropicStreamEventSchema.safeParse(data);
    if (!parsed.success) throw malformedAnswerError(this.#provider, 'stream event', parsed.error.issues);
    const event = parsed.data;
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        this.#counts = { ...usage, output_tokens: usage.output_tokens ?? 0 };
        break;
      }
      case 'message_delta': {
        const counts = this.#counts ?? { input_tokens: 0, output_tokens: 0 };
        const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } =
          event.usage;
        this.#counts = {
          input_tokens: input_tokens ?? counts.input_tokens,
          output_tokens,
          cache_creation_input_tokens: cache_creation_input_tokens ?? counts.cache_creation_input_tokens,
          cache_read_input_tokens: cache_read_input_tokens ?? counts.cache_read_input_tokens,
        };
        break;
      }
      case 'message_stop':
        this.#ended = true;
        break;
      case 'error':
        throw upstreamGatewayError(
          classifyAnthropicErrorType(event.error.type, event.error.message ?? undefined, undefined),
          { provider: this.#provider },
        );
    }
  }
}

/**
 * Messages SSE (API reference, "Streaming messages"): each event passed on under its type, read by
 * ClaudeStreamEvents (usage, the end, error events), with ping events anywhere.
 */
export class AnthropicStreamDecoder extends SseStreamDecoder {
  readonly #events: ClaudeStreamEvents;
  readonly #passedOn: boolean;

  /** `passedOn`: the events go to the client as they are (StreamDecoderCall.passedOn). */
  constructor(provider: string, publicModel: string, passedOn = false) {
    super(provider, 'message_stop');
    this.#events = new ClaudeStreamEvents(provider, publicModel);
    this.#passedOn = passedOn;
  }

  override usage(): Usage | null {
    return this.#events.usage();
  }

  protected override decode(message: SseMessage): StreamEvent[] {
    const passed = this.#unparsed(message);
    if (passed !== null) return [passed];
    const data = sseJson(message, this.provider);
    const type = this.#events.read(data);
    if (this.#events.ended) this.end();
    return [{ event: type, data }];
  }

  /**
   * A content delta passed on as the upstream's text, unparsed, on a native route: it names no
   * model and carries no usage, so nothing in it changes (docs/decisions/hot-path.md, Native
   * Messages deltas not parsed). Every other event is parsed and checked.
   */
  #unparsed(message: SseMessage): UnparsedEvent | null {
    if (!this.#passedOn || message.event !== 'content_block_delta' || message.data.includes('\n'))
      return null;
    const generated = readDeltaText(message.data);
    return generated === null ? null : new UnparsedEvent(message.data, generated, message.event);
  }
}
