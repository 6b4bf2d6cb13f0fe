import { type ChatChunkDelta, ChatChunkWriter } from '../../../formats/chat-completions/chunks.ts';
import type { ChatFinishReason } from '../../../formats/chat-completions/wire.ts';
import type { AnthropicUsageCounts } from '../../../formats/messages/usage.ts';
import type { AnthropicStreamEvent } from '../../../formats/messages/wire.ts';
import { truncatedStreamError } from '../../shared/upstream-error.ts';
import type { StreamEvent } from '../../types.ts';
import {
  chatIdFromMessage,
  chatUsageFromAnthropic,
  finishReasonFromAnthropic,
  thinkingBlockOf,
} from './answer.ts';

import { JSON_MODE_TOOL } from './json-mode-tool.ts';

export interface MessagesToChatStreamOptions {
  /** The client's `stream_options.include_usage`: the usage chunk and `usage: null` on the others. */
  includeUsage: boolean;
  createdSeconds: number;
  /** JSON mode: the JSON tool's input streams as content (json-mode-tool.ts). */
  jsonMode?: boolean;
}

/**
 * The fields of a content block or delta this translator reads, as the Messages reference documents
 * them; the decoder checked only `type` (formats/messages/wire.ts).
 */
type BlockFields = {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  /** `input_json_delta`'s, which always has it. */
  partial_json: string;
  id?: string;
  name?: string;
};

/**
 * Anthropic events -> chat.completion.chunk events (API reference, "The chat completion chunk
 * object"), written by ChatChunkWriter: a role chunk at message_start, content and tool-call
 * deltas as they come, the finish_reason chunk at message_delta, then (if asked) the usage chunk
 * and `[DONE]` at message_stop. Thinking streams as `reasoning_content`; at its signature, the whole block goes out
 * once in `thinking_blocks` (what a client sends back to continue a tool loop). Pings are skipped.
 */
export class MessagesToChatStream {
  readonly #includeUsage: boolean;
  readonly #created: number;
  readonly #jsonMode: boolean;
  /** The answer's identity is known at message_start; until then chunks carry an empty one. */
  #writer: ChatChunkWriter;
  /** Content block indexes of the JSON tool (JSON mode) and the thinking text of open blocks. */
  readonly #jsonBlocks = new Set<number>();
  readonly #thinking = new Map<number, string>();
  #finished = false;
  /** Anthropic content block index -> Chat tool-call index. */
  readonly #toolCalls = new Map<number, number>();
  #counts: AnthropicUsageCounts = { input_tokens: 0, output_tokens: 0 };

  constructor(options: MessagesToChatStreamOptions) {
    this.#includeUsage = options.includeUsage;
    this.#created = options.createdSeconds;
    this.#jsonMode = options.jsonMode === true;
    this.#writer = this.#writerFor('', '');
  }

  push(event: StreamEvent<AnthropicStreamEvent>): StreamEvent[] {
    if (this.#finished) return [];
    const data = event.data;
    switch (data.type) {
      case 'message_start':
        this.#writer = this.#writerFor(chatIdFromMessage(data.message.id), data.message.model);
        this.#counts = { ...data.message.usage, output_tokens: data.message.usage.output_tokens ?? 0 };
        return [this.#chunk({ role: 'assistant', content: '' })];
      case 'content_block_start':
        return this.#blockStart(data.index, data.content_block as BlockFields);
      case 'content_block_delta':
        return this.#blockDelta(data.index, data.delta as BlockFields);
      case 'message_delta':
        this.#counts = {
          input_tokens: data.usage.input_tokens ?? this.#counts.input_tokens,
          output_tokens: data.usage.output_tokens,
          cache_creation_input_tokens:
            data.usage.cache_creation_input_tokens ?? this.#counts.cache_creation_input_tokens,
          cache_read_input_tokens: data.usage.cache_read_input_tokens ?? this.#counts.cache_read_input_tokens,
        };
        return [this.#chunk({}, finishReasonFromAnthropic(this.#stopReason(data.delta.stop_reason)))];
      case 'message_stop':
        return this.#end();
      default:
        return [];
    }
  }

  finish(): StreamEvent[] {
    if (!this.#finished) throw truncatedStreamError('messages', 'message_stop');
    return [];
  }

  #stopReason(stopReason: string | null | undefined): string | null | undefined {
    return this.#jsonBlocks.size > 0 && stopReason === 'tool_use' ? 'end_turn' : stopReason;
  }

  #blockStart(index: number, block: BlockFields): StreamEvent[] {
    if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
      return [this.#chunk({ content: block.text })];
    }
    if (block.type === 'thinking') {
      this.#thinking.set(index, String(block.thinking ?? ''));
      return block.thinking ? [this.#chunk({ reasoning_content: block.thinking })] : [];
    }
    if (block.type === 'redacted_thinking')
      return [this.#chunk({ thinking_blocks: [thinkingBlockOf(block)] })];
    if (block.type !== 'tool_use') return [];
    if (this.#jsonMode && block.name === JSON_MODE_TOOL) {
      this.#jsonBlocks.add(index);
      return [];
    }
    const toolIndex = this.#toolCalls.size;
    this.#toolCalls.set(index, toolIndex);
    const call = {
      index: toolIndex,
      id: block.id,
      type: 'function' as const,
      function: { name: block.name, arguments: '' },
    };
    return [this.#chunk({ tool_calls: [call] })];
  }

  #blockDelta(index: number, delta: BlockFields): StreamEvent[] {
    if (delta.type === 'text_delta') return [this.#chunk({ content: delta.text })];
    if (delta.type === 'thinking_delta') {
      this.#thinking.set(index, (this.#thinking.get(index) ?? '') + String(delta.thinking ?? ''));
      return [this.#chunk({ reasoning_content: delta.thinking })];
    }
    if (delta.type === 'signature_delta') {
      const block = {
        type: 'thinking',
        thinking: this.#thinking.get(index) ?? '',
        signature: delta.signature,
      };
      return [this.#chunk({ thinking_blocks: [thinkingBlockOf(block)] })];
    }
    if (delta.type !== 'input_json_delta') return [];
    if (this.#jsonBlocks.has(index)) {
      return delta.partial_json === '' ? [] : [this.#chunk({ content: delta.partial_json })];
    }
    const toolIndex = this.#toolCalls.get(index);
    if (toolIndex === undefined || delta.partial_json === '') return [];
    return [this.#chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] })];
  }

  #end(): StreamEvent[] {
    this.#finished = true;
    return this.#writer.close(chatUsageFromAnthropic(this.#counts));
  }

  #chunk(delta: ChatChunkDelta, finishReason: ChatFinishReason | null = null): StreamEvent {
    return this.#writer.chunk(0, delta, finishReason);
  }

  #writerFor(id: string, model: string): ChatChunkWriter {
    return new ChatChunkWriter({ id, model, created: this.#created, includeUsage: this.#includeUsage });
  }
}
