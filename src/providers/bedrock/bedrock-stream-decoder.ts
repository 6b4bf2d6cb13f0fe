/**
 * ConverseStream bytes -> Chat Completions chunks. The body is an AWS event stream (see
 * event-stream-decoder.ts) whose `event` messages carry the ConverseStreamOutput members as JSON:
 * messageStart, contentBlockStart, contentBlockDelta, contentBlockStop, messageStop, metadata.
 * `exception` messages (`:exception-type`) and `error` messages (`:error-code`) end the stream with a
 * classified GatewayError. Reasoning deltas stream as `reasoning_content`; the request's answer
 * mode (see bedrock-answer-mode.ts) turns the JSON tool's input into content and a forbidden call
 * into an error; messageStop's matched stop sequence goes out as the finish chunk's `stop_reason`.
 */
import { ChatChunkWriter, type ChatChunkWriterOptions } from '../../formats/chat-completions/chunks.ts';
import { normaliseChatUsage } from '../../formats/chat-completions/usage.ts';
import type { ChatFinishReason, ChatUsage } from '../../formats/chat-completions/wire.ts';
import { malformedAnswerError, truncatedStreamError } from '../shared/upstream-error.ts';
import type { ByteStreamDecoder, StreamEvent, Usage } from '../types.ts';
import { type BedrockAnswerMode, toolUseRole } from './bedrock-answer-mode.ts';
import { BedrockEventFrames } from './bedrock-event-frames.ts';
import { matchedStopSequence } from './bedrock-stop-sequence.ts';
import { toChatUsage } from './bedrock-usage.ts';
import {
  type BedrockStreamEvent,
  type BedrockStreamEventType,
  bedrockStreamEventSchemas,
} from './bedrock-wire-types.ts';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.ts';

const PROVIDER = 'bedrock';

export interface BedrockStreamDecoderOptions extends ChatChunkWriterOptions {
  mode?: BedrockAnswerMode;
}

export class BedrockStreamDecoder implements ByteStreamDecoder {
  readonly framing = 'bytes';
  readonly #chunks: ChatChunkWriter;
  readonly #mode: BedrockAnswerMode;
  readonly #frames = new BedrockEventFrames();
  /** Converse content block index -> Chat Completions tool call index. */
  readonly #toolCalls = new Map<number, number>();
  /** Content block indexes of the JSON tool, whose input deltas are content. */
  readonly #jsonBlocks = new Set<number>();
  /** Content block indexes of calls past the first under `parallel_tool_calls: false`: dropped. */
  readonly #droppedBlocks = new Set<number>();
  /** The reasoning text of the open reasoning block, sent whole with its signature. */
  #reasoning = '';
  #roleSent = false;
  #finishReason: ChatFinishReason | null = null;
  #usage: ChatUsage | null = null;

  constructor(options: BedrockStreamDecoderOptions) {
    this.#chunks = new ChatChunkWriter(options);
    this.#mode = options.mode ?? { callsForbidden: false, jsonTool: false };
  }

  push(chunk: Uint8Array): StreamEvent[] {
    return this.#frames
      .push(chunk)
      .flatMap(({ type, payload }) =>
        Object.hasOwn(bedrockStreamEventSchemas, type)
          ? this.#event(type as BedrockStreamEventType, payload)
          : [],
      );
  }

  finish(): StreamEvent[] {
    if (this.#frames.pendingBytes > 0)
      throw truncatedStreamError(PROVIDER, 'the end of an event stream message');
    if (this.#finishReason === null) throw truncatedStreamError(PROVIDER, 'messageStop');
    return this.#chunks.close(this.#usage);
  }

  usage(): Usage | null {
    return this.#usage ? normaliseChatUsage(this.#usage) : null;
  }

  #event(type: BedrockStreamEventType, payload: unknown): StreamEvent[] {
    switch (type) {
      case 'messageStart':
        this.#parse('messageStart', payload);
        return this.#start();
      case 'contentBlockStart':
        return this.#blockStart(this.#parse('contentBlockStart', payload));
      case 'contentBlockDelta':
        return this.#blockDelta(this.#parse('contentBlockDelta', payload));
      case 'contentBlockStop':
        return [];
      case 'messageStop': {
        const { stopReason, additionalModelResponseFields } = this.#parse('messageStop', payload);
        const mapped = mapBedrockStopReason(stopReason);
        this.#finishReason = mapped === 'tool_calls' && this.#jsonBlocks.size > 0 ? 'stop' : mapped;
        const requested = this.#mode.stopSequences ?? [];
        const matched = matchedStopSequence(stopReason, additionalModelResponseFields, requested);
        return [this.#chunks.finish(0, this.#finishReason, matched)];
      }
      case 'metadata': {
        const { usage } = this.#parse('metadata', payload);
        if (usage) this.#usage = toChatUsage(usage);
        return [];
      }
    }
  }

  #parse<T extends BedrockStreamEventType>(type: T, payload: unknown): BedrockStreamEvent<T> {
    const parsed = bedrockStreamEventSchemas[type].safeParse(payload);
    if (!parsed.success) throw malformedAnswerError(PROVIDER, `${type} event`, parsed.error.issues);
    return parsed.data as BedrockStreamEvent<T>;
  }

  #start(): StreamEvent[] {
    if (this.#roleSent) return [];
    this.#roleSent = true;
    return [this.#chunks.chunk(0, { role: 'assistant', content: '' })];
  }

  #blockStart(event: BedrockStreamEvent<'contentBlockStart'>): StreamEvent[] {
    const toolUse = event.start.toolUse;
    if (!toolUse) return [];
    if (toolUseRole(this.#mode, toolUse.name) === 'json') {
      this.#jsonBlocks.add(event.contentBlockIndex);
      return this.#start();
    }
    if (this.#mode.singleToolCall && this.#toolCalls.size > 0) {
      this.#droppedBlocks.add(event.contentBlockIndex);
      return [];
    }
    const index = this.#toolCalls.size;
    this.#toolCalls.set(event.contentBlockIndex, index);
    return [
      ...this.#start(),
      this.#chunks.chunk(0, {
        tool_calls: [
          { index, id: toolUse.toolUseId, type: 'function', function: { name: toolUse.name, arguments: '' } },
        ],
      }),
    ];
  }

  #blockDelta(event: BedrockStreamEvent<'contentBlockDelta'>): StreamEvent[] {
    const { text, toolUse, reasoningContent } = event.delta;
    if (text !== undefined) return [...this.#start(), this.#chunks.chunk(0, { content: text })];
    if (reasoningContent) return [...this.#start(), ...this.#reasoningDelta(reasoningContent)];
    if (toolUse !== undefined && this.#droppedBlocks.has(event.contentBlockIndex)) return [];
    if (toolUse !== undefined && this.#jsonBlocks.has(event.contentBlockIndex))
      return [this.#chunks.chunk(0, { content: toolUse.input })];
    if (toolUse !== undefined) {
      const index = this.#toolCalls.get(event.contentBlockIndex);
      if (index === undefined)
        throw malformedAnswerError(PROVIDER, 'tool input delta', 'no contentBlockStart');
      return [this.#chunks.chunk(0, { tool_calls: [{ index, function: { arguments: toolUse.input } }] })];
    }
    // Citation deltas have no Chat Completions field.
    return [];
  }

  /**
   * Reasoning text streams as `reasoning_content`; at its signature the whole block goes out once
   * in `thinking_blocks` (as the Messages translator does), for the client to send back.
   */
  #reasoningDelta(delta: { text?: string; signature?: string; redactedContent?: string }): StreamEvent[] {
    if (delta.text !== undefined) {
      this.#reasoning += delta.text;
      return [this.#chunks.chunk(0, { reasoning_content: delta.text })];
    }
    if (delta.signature !== undefined) {
      const block = { type: 'thinking' as const, thinking: this.#reasoning, signature: delta.signature };
      this.#reasoning = '';
      return [this.#chunks.chunk(0, { thinking_blocks: [block] })];
    }
    if (delta.redactedContent !== undefined) {
      return [
        this.#chunks.chunk(0, {
          thinking_blocks: [{ type: 'redacted_thinking', data: delta.redactedContent }],
        }),
      ];
    }
    return [];
  }
}
