import type { UpstreamChatCompletionChunk } from '../../../formats/chat-completions/wire.ts';
import type { StreamEvent } from '../../types.ts';

export type ChatToolCallDelta = NonNullable<
  UpstreamChatCompletionChunk['choices'][number]['delta']['tool_calls']
>[number];

/** What a stream translator does with a call: open its item or block, and add argument text. */
export interface ToolCallSink<Handle> {
  open(name: string, id: string | undefined, out: StreamEvent[]): Handle;
  arguments(handle: Handle, text: string, out: StreamEvent[]): void;
}

interface Call<Handle> {
  id: string | undefined;
  arguments: string;
  handle: Handle | null;
}

/**
 * Chat's streamed tool calls by index, each opened once its name is known: some upstreams send a
 * first delta with only the id, and a call opened then would be a call of a tool named `""`.
 * Arguments that came before the name follow the opening as one piece.
 */
export class ToolCallDeltas<Handle> {
  readonly #calls = new Map<number, Call<Handle>>();
  readonly #sink: ToolCallSink<Handle>;

  constructor(sink: ToolCallSink<Handle>) {
    this.#sink = sink;
  }

  push(delta: ChatToolCallDelta, out: StreamEvent[]): void {
    let call = this.#calls.get(delta.index);
    if (call === undefined) {
      call = { id: undefined, arguments: '', handle: null };
      this.#calls.set(delta.index, call);
    }
    if (delta.id != null && delta.id !== '') call.id ??= delta.id;
    const text = delta.function?.arguments ?? '';
    if (call.handle !== null) {
      if (text !== '') this.#sink.arguments(call.handle, text, out);
      return;
    }
    call.arguments += text;
    const name = delta.function?.name;
    if (name == null || name === '') return;
    call.handle = this.#sink.open(name, call.id, out);
    if (call.arguments !== '') this.#sink.arguments(call.handle, call.arguments, out);
  }
}
