/**
 * A cached Responses answer replayed as its events (API reference, "Streaming events"), for
 * ClientFormat.replay (index.ts).
 */

import type { Json } from '../json.ts';
import { isRecord } from '../json.ts';
import type { StreamEvent } from '../stream-event.ts';
import { type ResponseObject, responseObjectSchema } from './wire.ts';

type OutputItem = ResponseObject['output'][number];

/** Where an event of an item's part points (the fields OpenAI's events name it by). */
interface PartAt {
  item_id: string;
  output_index: number;
  content_index: number;
}

/** The event that ends a stream, by the status of the response it carries. */
const TERMINAL_EVENTS: ReadonlyMap<string, string> = new Map([
  ['completed', 'response.completed'],
  ['incomplete', 'response.incomplete'],
]);

/** Collects a stream's events, numbering them by `sequence_number` from 0 as the API does. */
class ResponsesEvents {
  readonly events: StreamEvent[] = [];

  emit(type: string, fields: Json): void {
    this.events.push({ event: type, data: { type, ...fields, sequence_number: this.events.length } });
  }
}

export function replayResponse(answer: unknown): StreamEvent[] | null {
  if (!responseObjectSchema.safeParse(answer).success) return null;
  const response = answer as ResponseObject;
  const terminal = TERMINAL_EVENTS.get(response.status ?? '');
  // A failed, cancelled or still running response is no answer to replay.
  if (terminal === undefined) return null;
  const out = new ResponsesEvents();
  const started = { ...response, status: 'in_progress', incomplete_details: null, output: [], usage: null };
  out.emit('response.created', { response: started });
  out.emit('response.in_progress', { response: started });
  for (const [outputIndex, item] of response.output.entries()) {
    if (!replayOutputItem(out, item, outputIndex)) return null;
  }
  out.emit(terminal, { response });
  return out.events;
}

/** An output item's events, from output_item.added to output_item.done; false for a malformed item. */
function replayOutputItem(out: ResponsesEvents, item: OutputItem, outputIndex: number): boolean {
  switch (item.type) {
    case 'message':
      return replayMessageItem(out, item, outputIndex);
    case 'function_call':
      return replayFunctionCall(out, item, outputIndex);
    case 'reasoning':
      return replayReasoning(out, item, outputIndex);
    default: {
      const added = 'status' in item ? { ...item, status: 'in_progress' } : item;
      out.emit('response.output_item.added', { output_index: outputIndex, item: added });
      out.emit('response.output_item.done', { output_index: outputIndex, item });
      return true;
    }
  }
}

function replayMessageItem(out: ResponsesEvents, item: OutputItem, outputIndex: number): boolean {
  const { id, content } = item;
  if (typeof id !== 'string' || !Array.isArray(content) || !content.every(isRecord)) return false;
  out.emit('response.output_item.added', {
    output_index: outputIndex,
    item: { ...item, status: 'in_progress', content: [] },
  });
  for (const [contentIndex, part] of content.entries()) {
    if (!replayPart(out, { item_id: id, output_index: outputIndex, content_index: contentIndex }, part))
      return false;
  }
  out.emit('response.output_item.done', { output_index: outputIndex, item });
  return true;
}

/** A content part's events, from content_part.added to content_part.done. */
function replayPart(out: ResponsesEvents, at: PartAt, part: Json): boolean {
  switch (part.type) {
    case 'output_text':
      return replayOutputText(out, at, part);
    case 'refusal': {
      const { refusal } = part;
      if (typeof refusal !== 'string') return false;
      out.emit('response.content_part.added', { ...at, part: { ...part, refusal: '' } });
      if (refusal !== '') out.emit('response.refusal.delta', { ...at, delta: refusal });
      out.emit('response.refusal.done', { ...at, refusal });
      out.emit('response.content_part.done', { ...at, part });
      return true;
    }
    default:
      out.emit('response.content_part.added', { ...at, part });
      out.emit('response.content_part.done', { ...at, part });
      return true;
  }
}

function replayOutputText(out: ResponsesEvents, at: PartAt, part: Json): boolean {
  const { text, annotations = [] } = part;
  if (typeof text !== 'string' || !Array.isArray(annotations)) return false;
  out.emit('response.content_part.added', { ...at, part: { ...part, text: '', annotations: [] } });
  if (text !== '') out.emit('response.output_text.delta', { ...at, delta: text, logprobs: [] });
  for (const [annotationIndex, annotation] of annotations.entries()) {
    out.emit('response.output_text.annotation.added', {
      ...at,
      annotation_index: annotationIndex,
      annotation,
    });
  }
  out.emit('response.output_text.done', { ...at, text, logprobs: [] });
  out.emit('response.content_part.done', { ...at, part });
  return true;
}

function replayFunctionCall(out: ResponsesEvents, item: OutputItem, outputIndex: number): boolean {
  const { id, name, arguments: args } = item;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof args !== 'string') return false;
  const at = { item_id: id, output_index: outputIndex };
  out.emit('response.output_item.added', {
    output_index: outputIndex,
    item: { ...item, status: 'in_progress', arguments: '' },
  });
  if (args !== '') out.emit('response.function_call_arguments.delta', { ...at, delta: args });
  out.emit('response.function_call_arguments.done', { ...at, name, arguments: args });
  out.emit('response.output_item.done', { output_index: outputIndex, item });
  return true;
}

/** A reasoning item: its summary parts stream as reasoning_summary events; the rest comes whole. */
function replayReasoning(out: ResponsesEvents, item: OutputItem, outputIndex: number): boolean {
  const { id, summary } = item;
  if (typeof id !== 'string' || !Array.isArray(summary) || !summary.every(isSummaryText)) return false;
  out.emit('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [] } });
  for (const [summaryIndex, part] of summary.entries()) {
    const at = { item_id: id, output_index: outputIndex, summary_index: summaryIndex };
    out.emit('response.reasoning_summary_part.added', { ...at, part: { ...part, text: '' } });
    if (part.text !== '') out.emit('response.reasoning_summary_text.delta', { ...at, delta: part.text });
    out.emit('response.reasoning_summary_text.done', { ...at, text: part.text });
    out.emit('response.reasoning_summary_part.done', { ...at, part });
  }
  out.emit('response.output_item.done', { output_index: outputIndex, item });
  return true;
}

function isSummaryText(part: unknown): part is Json & { text: string } {
  return isRecord(part) && typeof part.text === 'string';
}
