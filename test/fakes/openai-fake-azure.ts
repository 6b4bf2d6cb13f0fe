/**
 * Azure OpenAI's content-filter annotations on the fake's chat answers (Azure OpenAI documentation,
 * "Content filtering" and "Content streaming"): every answer carries `prompt_filter_results`; a
 * stream starts with the prompt annotation chunk (empty choices, ids and model), then either
 * `content_filter_results` on each choice (the default, synchronous filter) or annotation-only
 * chunks without `delta` after the text they vetted (the asynchronous filter). Given a verdict, the
 * filter withholds the completion after its first words: `finish_reason: "content_filter"`, the
 * category `filtered: true` (with its severity, or `detected` for a detector such as
 * `protected_material_text`), as Azure stops a filtered answer.
 */
import { SSE_DONE } from '../../src/formats/sse.ts';
import type { StreamEvent } from '../../src/providers/types.ts';

export type AzureContentFilterMode = 'default' | 'asynchronous';

/** What the fake's filter withholds: a category, at a severity (absent for a detector). */
export interface AzureFilterVerdict {
  category: string;
  severity?: string;
}

type Json = Record<string, unknown>;

const SAFE = Object.freeze({
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
});

const PROMPT_FILTER_RESULTS = [{ prompt_index: 0, content_filter_results: SAFE }];

/** The results of a choice the filter stopped. */
function filteredResults(verdict: AzureFilterVerdict): Json {
  const result =
    verdict.severity === undefined
      ? { filtered: true, detected: true }
      : { filtered: true, severity: verdict.severity };
  return { ...SAFE, [verdict.category]: result };
}

/** A non-streamed completion as Azure returns it; with a verdict, stopped after its first word. */
export function azureCompletion(completion: Json, verdict: AzureFilterVerdict | null = null): Json {
  const choices = (completion.choices as Json[]).map((choice) => {
    if (verdict === null) return { ...choice, content_filter_results: SAFE };
    const message = choice.message as Json;
    const firstWord = String(message.content ?? '').split(' ', 1)[0];
    return {
      ...choice,
      message: { ...message, content: firstWord },
      finish_reason: 'content_filter',
      content_filter_results: filteredResults(verdict),
    };
  });
  return { ...completion, choices, prompt_filter_results: PROMPT_FILTER_RESULTS };
}

/**
 * The OpenAI stream cut after its first text chunk and ended by the filter (`finish_reason:
 * "content_filter"`), its usage chunk and `[DONE]` kept.
 */
function stoppedAfterFirstText(events: StreamEvent[]): StreamEvent[] {
  const first = events.findIndex((event) => {
    const choices = (event.data as Json).choices as Json[] | undefined;
    return Boolean((choices?.[0]?.delta as { content?: string } | undefined)?.content);
  });
  const kept = events.slice(0, first + 1);
  const last = kept.at(-1)!.data as Json;
  const stop = { index: 0, delta: {}, logprobs: null, finish_reason: 'content_filter' };
  kept.push({ data: { ...last, choices: [stop] } });
  const tail = events.slice(first + 1).filter((event) => {
    return event.data === SSE_DONE || ((event.data as Json).choices as Json[]).length === 0;
  });
  return [...kept, ...tail];
}

/** The fake's OpenAI chat stream as an Azure deployment with `mode` streams it, stopped by `verdict` if given. */
export function azureChatEvents(
  openAIEvents: StreamEvent[],
  mode: AzureContentFilterMode,
  verdict: AzureFilterVerdict | null = null,
): StreamEvent[] {
  const events = verdict === null ? openAIEvents : stoppedAfterFirstText(openAIEvents);
  const out: StreamEvent[] = [
    {
      data: {
        choices: [],
        created: 0,
        id: '',
        model: '',
        object: '',
        prompt_filter_results: PROMPT_FILTER_RESULTS,
        usage: null,
      },
    },
  ];
  let offset = 0;
  for (const event of events) {
    const chunk = event.data as Json;
    if (event.data === SSE_DONE || (chunk.choices as Json[]).length === 0) {
      out.push(event);
      continue;
    }
    const choice = (chunk.choices as Json[])[0];
    const stopped = verdict !== null && choice.finish_reason === 'content_filter';
    if (mode === 'default') {
      const results = stopped ? filteredResults(verdict) : SAFE;
      const choices = (chunk.choices as Json[]).map((c) => ({ ...c, content_filter_results: results }));
      out.push({ data: { ...chunk, choices } });
      continue;
    }
    if (stopped) {
      // The asynchronous filter's verdict is an annotation chunk that ends the choice.
      out.push({ data: annotation(offset, 'content_filter', filteredResults(verdict)) });
      continue;
    }
    out.push(event);
    const text = (choice.delta as { content?: string }).content ?? '';
    if (text === '' && choice.finish_reason == null) continue;
    offset += text.length;
    out.push({ data: annotation(offset) });
  }
  return out;
}

function annotation(checkOffset: number, finishReason: string | null = null, results: Json = SAFE): Json {
  return {
    id: '',
    object: '',
    created: 0,
    model: '',
    choices: [
      {
        index: 0,
        finish_reason: finishReason,
        content_filter_results: results,
        content_filter_offsets: { check_offset: checkOffset, start_offset: 0, end_offset: checkOffset },
      },
    ],
    usage: null,
  };
}
