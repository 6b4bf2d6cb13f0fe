/** Output item objects of a Responses answer, shared by the stream's events and its final response. */
import type { ChatLogprobs } from '../../../formats/chat-completions/wire.ts';

export type PartKind = 'output_text' | 'refusal';

export interface FunctionCallItem {
  kind: 'function_call';
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
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

export function functionCallObject(
  item: FunctionCallItem,
  status: 'in_progress' | 'completed',
): Record<string, unknown> {
  return {
    id: item.id,
    type: 'function_call',
    status,
    arguments: item.arguments,
    call_id: item.callId,
    name: item.name,
  };
}
