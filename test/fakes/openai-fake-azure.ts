/**
 * Azure OpenAI's content-filter annotations on the fake's chat answers (Azure OpenAI documentation,
 * "Content filtering" and "Content streaming"): every answer carries `prompt_filter_results`; a
 * stream starts with the prompt annotation chunk (empty choices, ids and model), then either
 * `content_filter_results` on each choice (the default, synchronous filter) or annotation-only
 * chunks without `delta` after the text they vetted (the asynchronous filter).
 */
import { SSE_DONE } from '../../src/formats/sse.ts';
import type { StreamEvent } from '../../src/providers/types.ts';

export type AzureContentFilterMode = 'default' | 'asynchronous';

type Json = Record<string, unknown>;

const SAFE = Object.freeze({
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
});

const PROMPT_FILTER_RESULTS = [{ prompt_index: 0, content_filter_results: SAFE }];

/** A non-streamed completion as Azure returns it. */
export function azureCompletion(completion: Json): Json {
  const choices = (completion.choices as Json[]).map((choice) => ({
    ...choice,
    content_filter_results: SAFE,
  }));
  return { ...completion, choices, prompt_filter_results: PROMPT_FILTER_RESULTS };
}

/** The fake's OpenAI chat stream as an Azure deployment with `mode` streams it. */
export function azureChatEvents(events: StreamEvent[], mode: AzureContentFilterMode): StreamEvent[] {
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
    if (mode === 'default') {
      const choices = (chunk.choices as Json[]).map((c) => ({ ...c, content_filter_results: SAFE }));
      out.push({ data: { ...chunk, choices } });
      continue;
    }
    out.push(event);
    const choice = (chunk.choices as Json[])[0];
    const text = (choice.delta as { content?: string }).content ?? '';
    if (text === '' && choice.finish_reason == null) continue;
    offset += text.length;
    out.push({ data: annotation(offset) });
  }
  return out;
}

function annotation(checkOffset: number): Json {
  return {
    id: '',
    object: '',
    created: 0,
    model: '',
    choices: [
      {
        index: 0,
        finish_reason: null,
        content_filter_results: SAFE,
        content_filter_offsets: { check_offset: checkOffset, start_offset: 0, end_offset: checkOffset },
      },
    ],
    usage: null,
  };
}
