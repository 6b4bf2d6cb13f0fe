/**
 * InvokeModelWithResponseStream bytes for Claude -> Anthropic's stream events. The body is an AWS
 * event stream (bedrock-event-frames.ts) whose `chunk` events carry `{"bytes": <base64>}`, each
 * the JSON of one Anthropic stream event (message_start ... message_stop), read by
 * ClaudeStreamEvents as Anthropic's own SSE is. Bedrock adds its invocation metrics to
 * message_stop (`amazon-bedrock-invocationMetrics`); they are the gateway's, not the client's.
 */
import { ClaudeStreamEvents } from '../anthropic/claude-stream-events.ts';
import { malformedAnswerError, truncatedStreamError } from '../shared/upstream-error.ts';
import type { ByteStreamDecoder, StreamEvent, Usage } from '../types.ts';
import { BedrockEventFrames } from './bedrock-event-frames.ts';

const PROVIDER = 'bedrock';
const INVOCATION_METRICS = 'amazon-bedrock-invocationMetrics';

export class BedrockClaudeStreamDecoder implements ByteStreamDecoder {
  readonly framing = 'bytes';
  readonly #frames = new BedrockEventFrames();
  readonly #events: ClaudeStreamEvents;

  /** `publicModel`: the model message_start names (StreamDecoderCall.publicModel). */
  constructor(publicModel: string) {
    this.#events = new ClaudeStreamEvents(PROVIDER, publicModel);
  }

  push(chunk: Uint8Array): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const { type, payload } of this.#frames.push(chunk)) {
      if (this.#events.ended || type !== 'chunk') continue;
      const data = this.#chunkEvent(payload);
      const eventType = this.#events.read(data);
      out.push({ event: eventType, data });
    }
    return out;
  }

  finish(): StreamEvent[] {
    if (this.#frames.pendingBytes > 0)
      throw truncatedStreamError(PROVIDER, 'the end of an event stream message');
    if (!this.#events.ended) throw truncatedStreamError(PROVIDER, 'message_stop');
    return [];
  }

  usage(): Usage | null {
    return this.#events.usage();
  }

  #chunkEvent(payload: unknown): Record<string, unknown> {
    const bytes = (payload as { bytes?: unknown } | null)?.bytes;
    if (typeof bytes !== 'string') throw malformedAnswerError(PROVIDER, 'chunk event', { payload });
    const text = Buffer.from(bytes, 'base64').toString('utf8');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw malformedAnswerError(PROVIDER, 'chunk event', text.slice(0, 200));
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw malformedAnswerError(PROVIDER, 'chunk event', text.slice(0, 200));
    const { [INVOCATION_METRICS]: _metrics, ...event } = data as Record<string, unknown>;
    return event;
  }
}
