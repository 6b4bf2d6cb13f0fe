/** Output item objects of a Responses answer, shared by the stream's events and its final response. */

export type PartKind = 'output_text' | 'refusal';

export interface FunctionCallItem {
  kind: 'function_call';
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
  arguments: string;
}

export function partObject(kind: PartKind, text: string): Record<string, unknown> {
  return kind === 'output_text'
    ? { type: 'output_text', text, annotations: [] }
    : { type: 'refusal', refusal: text };
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
