import {
  type ChatStreamData,
  type ChatThinkingBlock,
  type UpstreamChatCompletionChunk,
  type UpstreamChatUsage,
  upstreamReasoningText,
} from '../../../formats/chat-completions/wire.ts';
import type { ResponsesRequest } from '../../../formats/responses/wire.ts';
import { SSE_DONE } from '../../../formats/sse.ts';
import { truncatedStreamError } from '../../shared/upstream-error.ts';
import type { StreamEvent } from '../../types.ts';
import { ToolCallDeltas } from '../shared/tool-call-deltas.ts';
import {
  reasoningItem,
  responseEnvelope,
  responseIds,
  responsesUsageFromChat,
  statusFromFinishReason,
} from './envelope.ts';
import {
  chatTokenLogprobs,
  type FunctionCallItem,
  functionCallObject,
  type PartKind,
  partObject,
  type TokenLogprobs,
} from './output-items.ts';
import { encodeThinkingBlocks, wantsEncryptedReasoning } from './reasoning.ts';
import { ResponsesToolSet } from './tools.ts';

interface MessageItem {
  kind: 'message';
  outputIndex: number;
  id: string;
  /** `logprobs`: the text's token log probabilities so far, when the upstream sends them. */
  parts: Array<{ kind: PartKind; text: string; logprobs?: TokenLogprobs }>;
}
interface ReasoningItem {
  kind: 'reasoning';
  outputIndex: number;
  id: string;
  text: string;
  /** Claude's signed thinking, returned as `encrypted_content` (reasoning.ts). */
  blocks: ChatThinkingBlock[];
}
type OpenItem = MessageItem | FunctionCallItem | ReasoningItem;

/**
 * Chat chunks -> Responses streaming events (API reference, "Streaming events"): response.created
 * and response.in_progress, then per output item output_item.added, content_part.added,
 * output_text.delta... (or function_call_arguments.delta...), their .done events and
 * output_item.done, and finally response.completed (or response.incomplete) with the whole
 * response, every event numbered by `sequence_number`. Deltas go out as they come; the text of the
 * open item is kept only because the .done events and the final response repeat it.
 */
export class ChatToResponsesStream {
  readonly #request: ResponsesRequest;
  readonly #keepThinking: boolean;
  #ids: ReturnType<typeof responseIds> | null = null;
  #createdAt = 0;
  #model = '';
  #sequence = 0;
  #finished = false;
  #nextOutputIndex = 0;
  #open: OpenItem | null = null;
  readonly #toolCalls = new ToolCallDeltas<FunctionCallItem>({
    open: (name, id, out) => this.#openToolCall(id, name, out),
    arguments: (item, text, out) => this.#argumentsDelta(item, text, out),
  });
  readonly #tools: ResponsesToolSet;
  readonly #output: unknown[] = [];
  #finishReason: string | null = null;
  #usage: UpstreamChatUsage | null = null;

  constructor(request: ResponsesRequest) {
    this.#request = request;
    this.#keepThinking = wantsEncryptedReasoning(request);
    this.#tools = ResponsesToolSet.of(request);
  }

  push(event: StreamEvent<ChatStreamData>): StreamEvent[] {
    if (this.#finished) return [];
    if (event.data === SSE_DONE) return this.#end();
    const chunk = event.data;
    const out: StreamEvent[] = [];
    if (this.#ids === null) this.#start(chunk, out);
    if (chunk.usage != null) this.#usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (choice === undefined) return out;
    const reasoning = upstreamReasoningText(choice.delta);
    if (reasoning !== '') this.#reasoningDelta(reasoning, out);
    const blocks = (choice.delta as { thinking_blocks?: ChatThinkingBlock[] | null }).thinking_blocks;
    // Signed thinking, kept for the client's next turn when it asked for it.
    if (this.#keepThinking && blocks != null) this.#reasoningItem(out).blocks.push(...blocks);
    if (choice.delta.content != null && choice.delta.content !== '')
      this.#partDelta('output_text', choice.delta.content, out, chatTokenLogprobs(choice));
    if (choice.delta.refusal != null && choice.delta.refusal !== '')
      this.#partDelta('refusal', choice.delta.refusal, out);
    for (const call of choice.delta.tool_calls ?? []) this.#toolCalls.push(call, out);
    if (choice.finish_reason != null) this.#finishReason = choice.finish_reason;
    return out;
  }

  finish(): StreamEvent[] {
    if (!this.#finished) throw truncatedStreamError('chat.completions', 'data: [DONE]');
    return [];
  }

  #start(chunk: UpstreamChatCompletionChunk, out: StreamEvent[]): void {
    this.#ids = responseIds(chunk.id);
    this.#createdAt = chunk.created;
    this.#model = chunk.model;
    const response = this.#envelope('in_progress', null, null);
    this.#emit(out, 'response.created', { response });
    this.#emit(out, 'response.in_progress', { response });
  }

  #partDelta(kind: PartKind, delta: string, out: StreamEvent[], logprobs?: TokenLogprobs): void {
    const item = this.#messageItem(out);
    let part = item.parts.at(-1);
    if (part?.kind !== kind) {
      if (part !== undefined) this.#closePart(item, out);
      part = { kind, text: '' };
      item.parts.push(part);
      this.#emit(out, 'response.content_part.added', {
        ...this.#where(item),
        content_index: item.parts.length - 1,
        part: partObject(kind, ''),
      });
    }
    part.text += delta;
    if (logprobs !== undefined) part.logprobs = [...(part.logprobs ?? []), ...logprobs];
    const where = { ...this.#where(item), content_index: item.parts.length - 1 };
    if (kind === 'output_text')
      this.#emit(out, 'response.output_text.delta', { ...where, delta, logprobs: logprobs ?? [] });
    else this.#emit(out, 'response.refusal.delta', { ...where, delta });
  }

  /** Reasoning text as the summary of a `reasoning` item (envelope.ts, reasoningItem). */
  #reasoningDelta(delta: string, out: StreamEvent[]): void {
    const item = this.#reasoningItem(out);
    if (item.text === '') {
      this.#emit(out, 'response.reasoning_summary_part.added', {
        ...this.#where(item),
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    }
    item.text += delta;
    this.#emit(out, 'response.reasoning_summary_text.delta', {
      ...this.#where(item),
      summary_index: 0,
      delta,
    });
  }

  #reasoningItem(out: StreamEvent[]): ReasoningItem {
    if (this.#open?.kind === 'reasoning') return this.#open;
    const { outputIndex, id } = this.#startItem('rs', out);
    const item: ReasoningItem = {
      kind: 'reasoning',
      outputIndex,
      id,
      text: '',
      blocks: [],
    };
    this.#open = item;
    this.#emit(out, 'response.output_item.added', {
      output_index: outputIndex,
      item: { id: item.id, type: 'reasoning', summary: [] },
    });
    return item;
  }

  #messageItem(out: StreamEvent[]): MessageItem {
    if (this.#open?.kind === 'message') return this.#open;
    const { outputIndex, id } = this.#startItem('msg', out);
    const item: MessageItem = {
      kind: 'message',
      outputIndex,
      id,
      parts: [],
    };
    this.#open = item;
    this.#emit(out, 'response.output_item.added', {
      output_index: outputIndex,
      item: { id: item.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    return item;
  }

  /** A function_call (or custom_tool_call) item, opened once the call's name is known. */
  #openToolCall(callId: string | undefined, name: string, out: StreamEvent[]): FunctionCallItem {
    const { outputIndex, id } = this.#startItem('fc', out);
    const item: FunctionCallItem = {
      kind: 'function_call',
      outputIndex,
      id,
      callId: callId ?? `call_${outputIndex}`,
      origin: this.#tools.origin(name),
      arguments: '',
    };
    this.#open = item;
    this.#emit(out, 'response.output_item.added', {
      output_index: outputIndex,
      item: functionCallObject(item, 'in_progress'),
    });
    return item;
  }

  /** A custom tool's input is the `input` of the arguments' JSON: sent whole when the call ends. */
  #argumentsDelta(item: FunctionCallItem, delta: string, out: StreamEvent[]): void {
    item.arguments += delta;
    if (item.origin.kind === 'custom') return;
    this.#emit(out, 'response.function_call_arguments.delta', { ...this.#where(item), delta });
  }

  /** Closes the open item and numbers the next one. */
  #startItem(prefix: 'fc' | 'msg' | 'rs', out: StreamEvent[]): { outputIndex: number; id: string } {
    this.#closeItem('completed', out);
    const outputIndex = this.#nextOutputIndex++;
    return { outputIndex, id: this.#ids!.item(prefix, outputIndex) };
  }

  #closePart(item: MessageItem, out: StreamEvent[]): void {
    const contentIndex = item.parts.length - 1;
    const part = item.parts[contentIndex];
    const where = { ...this.#where(item), content_index: contentIndex };
    if (part.kind === 'output_text') {
      const logprobs = part.logprobs ?? [];
      this.#emit(out, 'response.output_text.done', { ...where, text: part.text, logprobs });
    } else {
      this.#emit(out, 'response.refusal.done', { ...where, refusal: part.text });
    }
    const done = partObject(part.kind, part.text, part.logprobs);
    this.#emit(out, 'response.content_part.done', { ...where, part: done });
  }

  #closeItem(status: 'completed' | 'incomplete', out: StreamEvent[]): void {
    const item = this.#open;
    if (item === null) return;
    this.#open = null;
    let done: Record<string, unknown>;
    if (item.kind === 'message') {
      if (item.parts.length > 0) this.#closePart(item, out);
      done = {
        id: item.id,
        type: 'message',
        status,
        role: 'assistant',
        content: item.parts.map((p) => partObject(p.kind, p.text, p.logprobs)),
      };
    } else if (item.kind === 'reasoning') {
      done = this.#closeReasoning(item, out);
    } else {
      done = functionCallObject(item, 'completed');
      this.#closeToolCall(item, done, out);
    }
    this.#output.push(done);
    this.#emit(out, 'response.output_item.done', { output_index: item.outputIndex, item: done });
  }

  #closeToolCall(item: FunctionCallItem, done: Record<string, unknown>, out: StreamEvent[]): void {
    const where = this.#where(item);
    if (item.origin.kind === 'custom') {
      const input = done.input as string;
      if (input !== '') this.#emit(out, 'response.custom_tool_call_input.delta', { ...where, delta: input });
      this.#emit(out, 'response.custom_tool_call_input.done', { ...where, input });
      return;
    }
    const fields = { name: item.origin.name, arguments: item.arguments };
    this.#emit(out, 'response.function_call_arguments.done', { ...where, ...fields });
  }

  #closeReasoning(item: ReasoningItem, out: StreamEvent[]): Record<string, unknown> {
    if (item.text !== '') {
      const where = { ...this.#where(item), summary_index: 0 };
      this.#emit(out, 'response.reasoning_summary_text.done', { ...where, text: item.text });
      const part = { type: 'summary_text', text: item.text };
      this.#emit(out, 'response.reasoning_summary_part.done', { ...where, part });
    }
    const encrypted = item.blocks.length > 0 ? encodeThinkingBlocks(item.blocks) : undefined;
    return reasoningItem(item.id, item.text, encrypted);
  }

  #end(): StreamEvent[] {
    if (this.#ids === null) throw truncatedStreamError('chat.completions', 'a first chunk');
    this.#finished = true;
    const out: StreamEvent[] = [];
    const { status, incompleteReason } = statusFromFinishReason(this.#finishReason);
    this.#closeItem(status, out);
    const response = this.#envelope(status, incompleteReason, responsesUsageFromChat(this.#usage));
    this.#emit(out, status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    return out;
  }

  #envelope(
    status: 'in_progress' | 'completed' | 'incomplete',
    incompleteReason: string | null,
    usage: ReturnType<typeof responsesUsageFromChat>,
  ): Record<string, unknown> {
    return responseEnvelope(this.#request, {
      id: this.#ids!.response,
      createdAt: this.#createdAt,
      model: this.#model,
      status,
      incompleteReason,
      output: [...this.#output],
      usage,
    });
  }

  #where(item: OpenItem): { item_id: string; output_index: number } {
    return { item_id: item.id, output_index: item.outputIndex };
  }

  #emit(out: StreamEvent[], type: string, fields: Record<string, unknown>): void {
    out.push({ event: type, data: { type, ...fields, sequence_number: this.#sequence++ } });
  }
}
