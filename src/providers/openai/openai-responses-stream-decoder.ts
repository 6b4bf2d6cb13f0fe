import { isRecord, setModel } from '../../formats/json.ts';
import { readDeltaText } from '../../formats/responses/delta-text.ts';
import { usageFromResponses } from '../../formats/responses/usage.ts';
import { responsesStreamEventSchema } from '../../formats/responses/wire.ts';
import { UnparsedEvent } from '../../formats/sse.ts';
import { SseStreamDecoder, sseJson } from '../shared/sse-stream-decoder.ts';
import { malformedAnswerError, upstreamGatewayError } from '../shared/upstream-error.ts';
import type { SseMessage, StreamEvent, Usage } from '../types.ts';
import { classifyOpenAIStreamError } from './openai-error.ts';

/** Events that end a Responses stream normally (API reference, "Streaming events"). */
const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete']);
/** Events that end it with a failure: raised as a GatewayError, never forwarded with provider wording. */
const FAILURE_EVENTS: ReadonlySet<string> = new Set(['response.failed', 'error']);

/**
 * Responses SSE: typed events (`response.created` ... `response.completed`), each with its type as
 * the SSE event name. Usage is read from the terminal event's response.
 */
export class OpenAIResponsesStreamDecoder extends SseStreamDecoder {
  readonly #publicModel: string;
  readonly #passedOn: boolean;
  #usage: Usage | null = null;

  /**
   * `publicModel`: the model the events' responses name (StreamDecoderCall.publicModel);
   * `passedOn`: the events go to the client as they are (StreamDecoderCall.passedOn).
   */
  constructor(provider: string, publicModel: string, passedOn = false) {
    super(provider, 'response.completed');
    this.#publicModel = publicModel;
    this.#passedOn = passedOn;
  }

  override usage(): Usage | null {
    return this.#usage;
  }

  protected override decode(message: SseMessage): StreamEvent[] {
    const passed = this.#unparsed(message);
    if (passed !== null) return [passed];
    const data = sseJson(message, this.provider);
    const parsed = responsesStreamEventSchema.safeParse(data);
    if (!parsed.success)
      throw malformedAnswerError(this.provider, 'responses stream event', parsed.error.issues);
    const event = parsed.data;
    if (event.response?.usage != null) this.#usage = usageFromResponses(event.response.usage);
    if (FAILURE_EVENTS.has(event.type)) {
      const code = event.response?.error?.code ?? event.code ?? undefined;
      const text = event.response?.error?.message ?? event.message ?? undefined;
      throw upstreamGatewayError(classifyOpenAIStreamError(code, text), { provider: this.provider });
    }
    if (TERMINAL_EVENTS.has(event.type)) this.end();
    if (event.response !== undefined && isRecord(data)) setModel(data.response, this.#publicModel);
    return [{ event: event.type, data }];
  }

  /**
   * A delta event passed on as the upstream's text, unparsed, on a native route: it names no model
   * and carries no usage, so nothing in it changes (docs/decisions/hot-path.md, Native Responses
   * deltas not parsed). Every other event, and a delta of any other shape, is parsed and checked.
   */
  #unparsed(message: SseMessage): UnparsedEvent | null {
    if (!this.#passedOn || message.event === undefined) return null;
    const generated = readDeltaText(message.data, message.event);
    return generated === null ? null : new UnparsedEvent(message.data, generated, message.event);
  }
}
