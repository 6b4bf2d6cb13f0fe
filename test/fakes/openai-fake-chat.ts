/** Chat Completions answers of the OpenAI fake, JSON and SSE (see openai-fake-plan.ts). */
import { SSE_DONE } from '../../src/formats/sse.ts';
import type { StreamEvent } from '../../src/providers/types.ts';
import { decide, deltas, FAKE_CREATED, halves, type Json, type Plan, partsText } from './openai-fake-plan.ts';

export function planChat(body: Json): Plan {
  const messages = (body.messages as Json[]) ?? [];
  const last = messages.at(-1);
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const tools = ((body.tools as Json[]) ?? []).filter((t) => t.type === 'function');
  const choice = body.tool_choice as unknown;
  const forcedTool =
    typeof choice === 'object' && choice !== null
      ? String(((choice as Json).function as Json)?.name ?? '')
      : null;
  return decide({
    lastUserText: partsText(lastUser?.content),
    toolResult: last?.role === 'tool' ? partsText(last.content) : null,
    toolNames: tools.map((t) => String((t.function as Json).name)),
    forcedTool: forcedTool === '' ? null : forcedTool,
    toolsForced: choice === 'required' || forcedTool !== null,
    toolsDisabled: choice === 'none',
    maxTokens: (body.max_completion_tokens ?? body.max_tokens ?? null) as number | null,
    promptText: messages.map((m) => partsText(m.content)).join(' '),
  });
}

function chatUsage(plan: Plan): Json {
  return {
    prompt_tokens: plan.promptTokens,
    completion_tokens: plan.completionTokens,
    total_tokens: plan.promptTokens + plan.completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

export function chatCompletion(body: Json, model: string, sequence: number): Json {
  const plan = planChat(body);
  const message: Json = {
    role: 'assistant',
    content: plan.toolCall ? null : plan.text,
    refusal: null,
    annotations: [],
  };
  if (plan.toolCall) {
    message.tool_calls = [{ id: `call_fake${sequence}`, type: 'function', function: plan.toolCall }];
  }
  return {
    id: `chatcmpl-fake${sequence}`,
    object: 'chat.completion',
    created: FAKE_CREATED,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finishReason }],
    usage: chatUsage(plan),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

export function chatCompletionEvents(body: Json, model: string, sequence: number): StreamEvent[] {
  const plan = planChat(body);
  const includeUsage = (body.stream_options as Json | undefined)?.include_usage === true;
  const chunk = (delta: Json, finishReason: string | null = null): StreamEvent => {
    const data: Json = {
      id: `chatcmpl-fake${sequence}`,
      object: 'chat.completion.chunk',
      created: FAKE_CREATED,
      model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    if (includeUsage) data.usage = null;
    return { data };
  };
  const events: StreamEvent[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (plan.toolCall) {
    const call = {
      index: 0,
      id: `call_fake${sequence}`,
      type: 'function',
      function: { name: plan.toolCall.name, arguments: '' },
    };
    events.push(chunk({ tool_calls: [call] }));
    for (const part of halves(plan.toolCall.arguments)) {
      events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
    }
  } else {
    for (const text of deltas(plan.text)) events.push(chunk({ content: text }));
  }
  events.push(chunk({}, plan.finishReason));
  if (includeUsage) {
    events.push({
      data: {
        id: `chatcmpl-fake${sequence}`,
        object: 'chat.completion.chunk',
        created: FAKE_CREATED,
        model,
        system_fingerprint: 'fp_fake',
        choices: [],
        usage: chatUsage(plan),
      },
    });
  }
  events.push({ data: SSE_DONE });
  return events;
}
