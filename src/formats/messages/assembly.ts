/**
 * The Messages assembler: message_start's message, filled by the content block events and
 * message_delta, into the message a plain call would have received.
 */

import type { Json } from '../json.ts';
import { isRecord, parseJson } from '../json.ts';
import { openIf, type Progress, StreamAssembler } from '../stream-assembler.ts';
import type { StreamEvent } from '../stream-event.ts';
import { type AnthropicMessage, anthropicMessageSchema } from './wire.ts';

interface BlockDraft {
  block: Json;
  /** The input_json_delta text so far; null when none came (the block's input stays as it started). */
  json: string | null;
  stopped: boolean;
}

export class MessageAssembler extends StreamAssembler {
  #message: Json | null = null;
  #usage: Json = {};
  readonly #blocks: BlockDraft[] = [];

  protected apply(event: StreamEvent): Progress {
    const data = event.data;
    if (!isRecord(data)) return 'failed';
    if (data.type === 'message_start') return openIf(this.#start(data.message));
    // Nothing but a ping may come before message_start: the content would belong to no message.
    if (this.#message === null) return openIf(data.type === 'ping');
    switch (data.type) {
      case 'content_block_start':
        return openIf(this.#blockStart(data));
      case 'content_block_delta':
        return openIf(this.#blockDelta(data));
      case 'content_block_stop':
        return openIf(this.#blockStop(data));
      case 'message_delta':
        return openIf(this.#messageDelta(data));
      case 'message_stop':
        return 'complete';
      case 'error':
        return 'failed';
      default:
        // ping, and event types added later: the reference asks clients to tolerate new ones.
        return 'open';
    }
  }

  protected build(): AnthropicMessage | null {
    if (this.#message === null || this.#blocks.some((draft) => !draft.stopped)) return null;
    const message = {
      ...this.#message,
      content: this.#blocks.map((draft) => draft.block),
      usage: this.#usage,
    };
    // Once per stream: the stored answer must be a message a plain call could have received.
    return anthropicMessageSchema.safeParse(message).success ? (message as AnthropicMessage) : null;
  }

  #start(message: unknown): boolean {
    if (this.#message !== null || !isRecord(message) || !isRecord(message.usage)) return false;
    // Copies: the events are the client's, and message_delta's usage is merged into ours.
    this.#message = { ...message, content: [] };
    this.#usage = { ...message.usage };
    return true;
  }

  #blockStart(data: Json): boolean {
    const { index, content_block: block } = data;
    if (index !== this.#blocks.length || !isRecord(block)) return false;
    this.#blocks.push({ block: { ...block }, json: null, stopped: false });
    return true;
  }

  #blockDelta(data: Json): boolean {
    const draft = this.#openBlock(data.index);
    const delta = data.delta;
    if (draft === null || !isRecord(delta)) return false;
    const block = draft.block;
    switch (delta.type) {
      case 'text_delta':
        return appendText(block, 'text', delta.text);
      case 'thinking_delta':
        return appendText(block, 'thinking', delta.thinking);
      case 'signature_delta':
        // The signature comes whole, in one delta (the SDKs set it, not append it).
        if (typeof delta.signature !== 'string') return false;
        block.signature = delta.signature;
        return true;
      case 'input_json_delta':
        if (typeof delta.partial_json !== 'string') return false;
        draft.json = (draft.json ?? '') + delta.partial_json;
        return true;
      case 'citations_delta':
        block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
        return true;
      default:
        // A delta we cannot apply would leave the block short of it.
        return false;
    }
  }

  #blockStop(data: Json): boolean {
    const draft = this.#openBlock(data.index);
    if (draft === null) return false;
    draft.stopped = true;
    // input_json_delta text joins into the input at the block's end; an empty one leaves it as started.
    if (draft.json === null || draft.json === '') return true;
    const input = parseJson(draft.json);
    if (input === undefined) return false;
    draft.block.input = input;
    return true;
  }

  #messageDelta(data: Json): boolean {
    const { delta, usage } = data;
    if (!isRecord(delta) || !isRecord(usage)) return false;
    const message = this.#message!;
    if (delta.stop_reason !== undefined) message.stop_reason = delta.stop_reason;
    if (delta.stop_sequence !== undefined) message.stop_sequence = delta.stop_sequence;
    // message_delta's counts are cumulative; a field it leaves out or null keeps message_start's.
    for (const [field, value] of Object.entries(usage)) if (value != null) this.#usage[field] = value;
    return true;
  }

  #openBlock(index: unknown): BlockDraft | null {
    const draft = typeof index === 'number' ? this.#blocks[index] : undefined;
    return draft === undefined || draft.stopped ? null : draft;
  }
}

/** Adds a text delta to a block's string field; false when either is not a string. */
function appendText(block: Json, field: string, text: unknown): boolean {
  const current = block[field];
  if (typeof current !== 'string' || typeof text !== 'string') return false;
  block[field] = current + text;
  return true;
}
