import { sseJson } from '../shared/sse-json.ts';
import { SseStreamDecoder } from '../shared/sse-stream-decoder.ts';
import type { SseMessage, StreamEvent, Usage } from '../types.ts';
import { ClaudeStreamEvents } from './claude-stream-events.ts';

/**
 * Messages SSE (API reference, "Streaming messages"): each event passed on under its type, read by
 * ClaudeStreamEvents (usage, the end, error events), with ping events anywhere.
 */
export class AnthropicStreamDecoder extends SseStreamDecoder {
  readonly #events: ClaudeStreamEvents;

  constructor(provider: string, publicModel: string) {
    super(provider, 'message_stop');
    this.#events = new ClaudeStreamEvents(provider, publicModel);
  }

  override usage(): Usage | null {
    return this.#events.usage();
  }

  protected override decode(message: SseMessage): StreamEvent[] {
    const data = sseJson(message, this.provider);
    const type = this.#events.read(data);
    if (this.#events.ended) this.end();
    return [{ event: type, data }];
  }
}
