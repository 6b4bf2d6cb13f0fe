/** Output item objects of a Responses answer, shared by the stream's events and its final response. */
import type { ChatLogprobs } from '../../../formats/chat-completions/wire.ts';
import { customToolInput, type ToolOrigin } from './tools.ts';

export type PartKind = 'output_text' | 'refusal';

export interface FunctionCallItem {
  kind: 'function_call';
  outputIndex: number;
  id: string;
  callId: string;
  /** The Responses tool the call is for (tools.ts): a function, or a custom tool. */
  origin: ToolOrigin;
  arguments: string;
}

/** A Chat choice's token log probabilities, which Responses gives in the same shape. */
export type TokenLogprobs = NonNullable<ChatLogprobs['content']>;

/** The token log probabilities of a Chat choice or chunk, when the upstream sent some. */
export function chatTokenLogprobs(choice: object | undefined): TokenLogprobs | undefined {
  const content = (choice as { logprobs?: { content?: unknown } | null } | undefined)?.logprobs?.content;
  return Array.isArray(content) ? (content as TokenLogprobs) : undefined;
}

/** A content part; `logprobs` only when the call asked for them (the Chat answer carries them). */
export function partObject(kind: PartKind, text: string, logprobs?: TokenLogprobs): Record<string, unknown> {
  if (kind === 'refusal') return { type: 'refusal', refusal: text };
  return { type: 'output_text', text, annotations: [], ...(logprobs === undefined ? {} : { logprobs }) };
}

/** A `function_call` item, or a `custom_tool_call` one for a custom tool (its input unwrapped). */
export function functionCallObject(
  item: FunctionCallItem,
  status: 'in_progress' | 'completed',
): Record<string, unknown> {
  const { origin } = item;
  const namespace = origin.namespace === undefined ? {} : { namespace: origin.namespace };
  if (origin.kind === 'custom') {
    const input = customToolInput(item.arguments);
    return {
      id: item.id,
      type: 'custom_tool_call',
      status,
      call_id: item.callId,
      name: origin.name,
      input,
      ...namespace,
    };
  }
  return {
    id: item.id,
    type: 'function_call',
    status,
    arguments: item.arguments,
    call_id: item.callId,
    name: origin.name,
    ...namespace,
  };
}
