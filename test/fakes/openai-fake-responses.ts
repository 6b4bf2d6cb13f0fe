/** Responses answers of the OpenAI fake, JSON and SSE (see openai-fake-plan.ts). */
import type { StreamEvent } from '../../src/providers/types.ts';
import { decide, deltas, FAKE_CREATED, halves, type Json, type Plan, partsText } from './openai-fake-plan.ts';

function planResponses(body: Json): Plan {
  const input = body.input;
  const items: Json[] =
    typeof input === 'string' ? [{ role: 'user', content: input }] : ((input as Json[]) ?? []);
  const last = items.at(-1);
  const lastUser = [...items]
    .reverse()
    .find((item) => (item.type ?? 'message') === 'message' && item.role === 'user');
  const tools = ((body.tools as Json[]) ?? []).filter((t) => t.type === 'function');
  const choice = body.tool_choice as unknown;
  const forcedTool =
    typeof choice === 'object' && choice !== null ? String((choice as Json).name ?? '') : null;
  return decide({
    lastUserText: partsText(lastUser?.content),
    toolResult: last?.type === 'function_call_output' ? partsText(last.output) : null,
    toolNames: tools.map((t) => String(t.name)),
    forcedTool: forcedTool === '' ? null : forcedTool,
    toolsForced: choice === 'required' || forcedTool !== null,
    toolsDisabled: choice === 'none',
    maxTokens: (body.max_output_tokens ?? null) as number | null,
    promptText: [String(body.instructions ?? ''), ...items.map((i) => partsText(i.content ?? i.output))].join(
      ' ',
    ),
  });
}

function responseObject(
  body: Json,
  model: string,
  sequence: number,
  plan: Plan,
  status: string,
  output: Json[],
): Json {
  const done = status !== 'in_progress';
  return {
    id: `resp_fake${sequence}`,
    object: 'response',
    created_at: FAKE_CREATED,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: done
      ? {
          input_tokens: plan.promptTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: plan.completionTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: plan.promptTokens + plan.completionTokens,
        }
      : null,
    metadata: {},
  };
}

function outputItem(plan: Plan, sequence: number, status: string): Json {
  if (plan.toolCall) {
    return {
      id: `fc_fake${sequence}`,
      type: 'function_call',
      status: 'completed',
      arguments: plan.toolCall.arguments,
      call_id: `call_fake${sequence}`,
      name: plan.toolCall.name,
    };
  }
  return {
    id: `msg_fake${sequence}`,
    type: 'message',
    status,
    role: 'assistant',
    content: [{ type: 'output_text', text: plan.text, annotations: [] }],
  };
}

/**
 * A reasoning model's reasoning item, opaque (`encrypted_content`), when the call asks for
 * reasoning and for its encrypted content, as stateless callers do (Codex, the gateway itself).
 */
function reasoningItem(body: Json, sequence: number): Json | null {
  const include = body.include;
  if (body.reasoning == null || !Array.isArray(include) || !include.includes('reasoning.encrypted_content'))
    return null;
  return {
    id: `rs_fake${sequence}`,
    type: 'reasoning',
    summary: [],
    encrypted_content: `gAAAAfake${sequence}==`,
  };
}

export function response(body: Json, model: string, sequence: number): Json {
  const plan = planResponses(body);
  const status = plan.finishReason === 'length' ? 'incomplete' : 'completed';
  const reasoning = reasoningItem(body, sequence);
  const output = [...(reasoning ? [reasoning] : []), outputItem(plan, sequence, status)];
  return responseObject(body, model, sequence, plan, status, output);
}

export function responseEvents(body: Json, model: string, sequence: number): StreamEvent[] {
  const plan = planResponses(body);
  const status = plan.finishReason === 'length' ? 'incomplete' : 'completed';
  const events: StreamEvent[] = [];
  const emit = (type: string, fields: Json): void => {
    events.push({ event: type, data: { type, ...fields, sequence_number: events.length } });
  };
  const started = responseObject(body, model, sequence, plan, 'in_progress', []);
  emit('response.created', { response: started });
  emit('response.in_progress', { response: started });
  const reasoning = reasoningItem(body, sequence);
  if (reasoning) {
    emit('response.output_item.added', { output_index: 0, item: { ...reasoning, encrypted_content: null } });
    emit('response.output_item.done', { output_index: 0, item: reasoning });
  }
  const at = reasoning ? 1 : 0;
  const item = outputItem(plan, sequence, status);
  const where = { item_id: item.id, output_index: at };
  if (plan.toolCall) {
    emit('response.output_item.added', {
      output_index: at,
      item: { ...item, status: 'in_progress', arguments: '' },
    });
    for (const delta of halves(plan.toolCall.arguments))
      emit('response.function_call_arguments.delta', { ...where, delta });
    emit('response.function_call_arguments.done', {
      ...where,
      name: plan.toolCall.name,
      arguments: plan.toolCall.arguments,
    });
  } else {
    emit('response.output_item.added', {
      output_index: at,
      item: { ...item, status: 'in_progress', content: [] },
    });
    const part = { type: 'output_text', text: '', annotations: [] };
    emit('response.content_part.added', { ...where, content_index: 0, part });
    for (const delta of deltas(plan.text)) {
      emit('response.output_text.delta', { ...where, content_index: 0, delta, logprobs: [] });
    }
    emit('response.output_text.done', { ...where, content_index: 0, text: plan.text, logprobs: [] });
    emit('response.content_part.done', { ...where, content_index: 0, part: { ...part, text: plan.text } });
  }
  emit('response.output_item.done', { output_index: at, item });
  const final = responseObject(body, model, sequence, plan, status, [
    ...(reasoning ? [reasoning] : []),
    item,
  ]);
  emit(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final });
  return events;
}
