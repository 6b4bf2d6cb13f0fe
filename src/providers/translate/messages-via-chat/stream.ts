import {
  type ChatStreamData,
  type UpstreamChatCompletionChunk,
  type UpstreamChatUsage,
  upstreamReasoningText,
} from '../../../formats/chat-completions/wire.ts';
import { estimateInputTokens } from '../../../formats/estimate-tokens.ts';
import { type AnthropicMessagesRequest, messagesStreamEvent } from '../../../formats/messages/wire.ts';
import { SSE_DONE } from '../../../formats/sse.ts';
import { truncatedStreamError } from '../../shared/upstream-error.ts';
import type { StreamEvent } from '../../types.ts';
import { ToolCallDeltas } from '../shared/tool-call-deltas.ts';
import { messageIdFromChat } from './answer.ts';
import { type AnthropicStop, anthropicStopOf } from './finish-reason.ts';
import { anthropicUsageFromChat } from './usage.ts';

type OpenBlock = { kind: 'text' | 'thinking' | 'tool'; index: number };

/** The empty block each streamed text-like block starts with, and its delta's shape. */
const STREAMED_BLOCKS = Object.freeze({
  text: { start: { type: 'text', text: '' }, delta: (text: string) => ({ type: 'text_delta', text }) },
  thinking: {
    start: { type: 'thinking', thinking: '', signature: '' },
    delta: (thinking: string) => ({ type: 'thinking_delta', thinking }),
  },
});

/**
 * Chat chunks -> the Anthropic event sequence (API reference, "Streaming messages"):
 * message_start, per block content_block_start / content_block_delta... / content_block_stop,
 * then message_delta (stop_reason, usage) and message_stop. Chat sends usage after the
 * finish_reason chunk, so message_delta waits for `[DONE]`; nothing else is held back.
 */
export class ChatToMessagesStream {
  /** `inputTokens`: the pipeline's estimate when it made one; otherwise it is made here. */
  constructor(request: AnthropicMessagesRequest, inputTokens?: number) {
    this.#inputEstimate = inputTokens ?? estimateInputTokens('messages', request);
    this.#stopSequences = request.stop_sequences;
  }

  #started = false;
  #finished = false;
  #nextIndex = 0;
  #open: OpenBlock | null = null;
  /** Chat tool calls -> tool_use blocks, by their content block index. */
  readonly #toolCalls = new ToolCallDeltas<number>({
    open: (name, id, out) => this.#openToolBlock(id, name, out),
    arguments: (index, text, out) => this.#inputDelta(index, text, out),
  });
  /** The gateway's estimate of the request's input tokens, for message_start. */
  readonly #inputEstimate: number;
  readonly #stopSequences: readonly string[] | undefined;
  #stop: AnthropicStop = { stop_reason: 'end_turn', stop_sequence: null };
  #refused = false;
  #usage: UpstreamChatUsage | null = null;

  push(event: StreamEvent<ChatStreamData>): StreamEvent[] {
    if (this.#finished) return [];
    if (event.data === SSE_DONE) return this.#end();
    const chunk = event.data;
    const out: StreamEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      out.push(messageStart(chunk, this.#inputEstimate));
    }
    if (chunk.usage != null) this.#usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (choice === undefined) return out;
    const delta = choice.delta;
    const reasoning = upstreamReasoningText(delta);
    if (reasoning !== '') this.#streamed('thinking', reasoning, out);
    if (delta.content != null && delta.content !== '') this.#streamed('text', delta.content, out);
    if (delta.refusal != null && delta.refusal !== '') {
      this.#refused = true;
      this.#streamed('text', delta.refusal, out);
    }
    for (const call of delta.tool_calls ?? []) this.#toolCalls.push(call, out);
    if (choice.finish_reason != null) this.#stop = anthropicStopOf(choice, this.#stopSequences);
    return out;
  }

  finish(): StreamEvent[] {
    if (!this.#finished) throw truncatedStreamError('chat.completions', 'data: [DONE]');
    return [];
  }

  /** Upstream reasoning streams as a thinking block, content as a text block. */
  #streamed(kind: keyof typeof STREAMED_BLOCKS, text: string, out: StreamEvent[]): void {
    const shape = STREAMED_BLOCKS[kind];
    if (this.#open?.kind !== kind) {
      this.#close(out);
      this.#open = { kind, index: this.#nextIndex++ };
      out.push(
        messagesStreamEvent('content_block_start', { index: this.#open.index, content_block: shape.start }),
      );
    }
    out.push(
      messagesStreamEvent('content_block_delta', { index: this.#open.index, delta: shape.delta(text) }),
    );
  }

  /** A tool_use block, opened once the call's name is known (ToolCallDeltas). */
  #openToolBlock(id: string | undefined, name: string, out: StreamEvent[]): number {
    this.#close(out);
    const index = this.#nextIndex++;
    this.#open = { kind: 'tool', index };
    const block = { type: 'tool_use', id: id ?? `toolu_${index}`, name, input: {} };
    out.push(messagesStreamEvent('content_block_start', { index, content_block: block }));
    return index;
  }

  #inputDelta(index: number, partial: string, out: StreamEvent[]): void {
    const delta = { type: 'input_json_delta', partial_json: partial };
    out.push(messagesStreamEvent('content_block_delta', { index, delta }));
  }

  #close(out: StreamEvent[]): void {
    if (this.#open === null) return;
    out.push(messagesStreamEvent('content_block_stop', { index: this.#open.index }));
    this.#open = null;
  }

  #end(): StreamEvent[] {
    if (!this.#started) throw truncatedStreamError('chat.completions', 'a first chunk');
    this.#finished = true;
    const out: StreamEvent[] = [];
    this.#close(out);
    const usage = anthropicUsageFromChat(this.#usage);
    out.push(
      messagesStreamEvent('message_delta', {
        delta: this.#refused ? { stop_reason: 'refusal', stop_sequence: null } : this.#stop,
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: usage.output_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
        },
      }),
    );
    out.push(messagesStreamEvent('message_stop', {}));
    return out;
  }
}

/**
 * Chat reports usage only at the end: message_start carries the gateway's estimate of the input
 * (what clients such as Claude Code read to track the context window) and message_delta the
 * upstream's counts.
 */
function messageStart(chunk: UpstreamChatCompletionChunk, inputEstimate: number): StreamEvent {
  return messagesStreamEvent('message_start', {
    message: {
      id: messageIdFromChat(chunk.id),
      type: 'message',
      role: 'assistant',
      model: chunk.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputEstimate, output_tokens: 0 },
    },
  });
}
