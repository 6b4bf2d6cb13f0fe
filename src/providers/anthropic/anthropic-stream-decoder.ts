import { type AnthropicUsageCounts, usageFromAnthropic } from '../../formats/messages/usage.ts';
import { anthropicStreamEventSchema } from '../../formats/messages/wire.ts';
import type { SseMessage } from '../../formats/sse.ts';
import { sseJson } from '../shared/sse-json.ts';
import { SseStreamDecoder } from '../shared/sse-stream-decoder.ts';
import { malformedAnswerError, upstreamGatewayError } from '../shared/upstream-error.ts';
import type { StreamEvent, Usage } from '../types.ts';
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

/**
 * Messages SSE (API reference, "Streaming messages"): message_start, content blocks, message_delta,
 * message_stop, with ping events anywhere. Input tokens come with message_start, output tokens
 * (cumulative) with message_delta. An `error` event is raised as a GatewayError so that the
 * provider's wording never reaches the client; unknown event types pass through untouched.
 */
export class AnthropicStreamDecoder extends SseStreamDecoder {
  #counts: AnthropicUsageCounts | null = null;

  constructor(provider: string) {
    super(provider, 'message_stop');
  }

  override usage(): Usage | null {
    return this.#counts === null ? null : usageFromAnthropic(this.#counts);
  }

  protected override read(message: SseMessage): StreamEvent[] {
    const data = sseJson(message, this.provider);
    const type = typeof data === 'object' && data !== null && 'type' in data ? data.type : undefined;
    if (typeof type !== 'string') throw malformedAnswerError(this.provider, 'stream event', { data });
    if (KNOWN_EVENTS.has(type)) this.#observe(data);
    return [{ event: type, data }];
  }

  #observe(data: unknown): void {
    const parsed = anthropicStreamEventSchema.safeParse(data);
    if (!parsed.success) throw malformedAnswerError(this.provider, 'stream event', parsed.error.issues);
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
        this.end();
        break;
      case 'error':
        throw upstreamGatewayError(
          classifyAnthropicErrorType(event.error.type, event.error.message ?? undefined, undefined),
          { provider: this.provider },
        );
    }
  }
}
