import type { UpstreamChatUsage } from '../../../formats/chat-completions/wire.ts';
import type { ResponsesRequest } from '../../../formats/responses/wire.ts';
import { idSuffix } from '../shared/unsupported-parameter.ts';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ResponsesUsageWire {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseEnvelopeParts {
  id: string;
  createdAt: number;
  model: string;
  status: ResponseStatus;
  incompleteReason: string | null;
  output: unknown[];
  usage: ResponsesUsageWire | null;
}

/** The response id, and item ids, derived from the chat completion id. */
export function responseIds(chatId: string): {
  response: string;
  item(prefix: 'msg' | 'fc' | 'rs', outputIndex: number): string;
} {
  const base = idSuffix(chatId, 'chatcmpl-');
  return { response: `resp_${base}`, item: (prefix, outputIndex) => `${prefix}_${base}_${outputIndex}` };
}

/**
 * A `reasoning` output item holding the upstream's reasoning text as its summary: what Claude
 * shows of its thinking is a summary, and the summary is what Responses clients display.
 */
export function reasoningItem(id: string, text: string, encrypted?: string): Record<string, unknown> {
  const summary = text === '' ? [] : [{ type: 'summary_text', text }];
  return encrypted === undefined
    ? { id, type: 'reasoning', summary }
    : { id, type: 'reasoning', summary, encrypted_content: encrypted };
}

/** Chat usage -> Responses usage (both count cached tokens inside the input). */
export function responsesUsageFromChat(
  usage: UpstreamChatUsage | null | undefined,
): ResponsesUsageWire | null {
  if (usage == null) return null;
  const written = usage.prompt_tokens_details?.cache_write_tokens;
  return {
    input_tokens: usage.prompt_tokens,
    // Cache writes as Chat reports them (`cache_write_tokens`), where the upstream counts them.
    input_tokens_details: {
      cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      ...(written != null && written > 0 ? { cache_write_tokens: written } : {}),
    },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens,
  };
}

/** Chat finish_reason -> the response's status and incomplete reason. */
export function statusFromFinishReason(finishReason: string | null | undefined): {
  status: 'completed' | 'incomplete';
  incompleteReason: string | null;
} {
  if (finishReason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (finishReason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed', incompleteReason: null };
}

/**
 * The response object (API reference, "The response object"): the request's settings echoed, as
 * the Responses API does, around the translated output and usage.
 */
export function responseEnvelope(
  request: ResponsesRequest,
  parts: ResponseEnvelopeParts,
): Record<string, unknown> {
  return {
    id: parts.id,
    object: 'response',
    created_at: parts.createdAt,
    status: parts.status,
    error: null,
    incomplete_details: parts.incompleteReason === null ? null : { reason: parts.incompleteReason },
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: parts.model,
    output: parts.output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    usage: parts.usage,
    metadata: request.metadata ?? {},
  };
}
