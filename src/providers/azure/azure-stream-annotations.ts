import type { ChatChunkNormaliser } from '../openai/openai-chat-stream-decoder.ts';
import { AzureFilterVerdicts } from './azure-content-filter.ts';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields that name a chunk's completion; Azure's annotation chunks send them empty. */
interface ChunkIdentity {
  id: string;
  created: number;
  model: string;
}

/**
 * Azure OpenAI's content-filter annotations in a Chat stream ("Content streaming" and "Content
 * filtering" in the Azure OpenAI documentation), made the OpenAI stream the gateway serves:
 *
 * - The first chunk, `{"choices":[],"id":"","object":"","created":0,"model":"",
 *   "prompt_filter_results":[...]}` (`prompt_annotations` in older API versions), annotates the
 *   prompt: dropped.
 * - The asynchronous filter's chunks have choices with `content_filter_results` and
 *   `content_filter_offsets` but no `delta`: annotations of text already sent, dropped, unless
 *   the choice ends there (`finish_reason: "content_filter"`: the filter blocked the rest), which
 *   becomes an ordinary final choice with an empty delta under the stream's id.
 * - `content_filter_results` riding on ordinary chunks (the default, synchronous filter) pass
 *   through as Azure sent them: OpenAI clients ignore the field, Azure clients read it.
 *
 * The client sees OpenAI's chunk format whatever the deployment's filter mode; the annotations
 * stay in the upstream's answer (docs/providers.md, Azure). What the filter withheld, prompt and
 * choices, is read on the way (azure-content-filter.ts) for the request record.
 */
export function azureChunkNormaliser(): ChatChunkNormaliser {
  let identity: ChunkIdentity | null = null;
  const verdicts = new AzureFilterVerdicts();
  return {
    normalise(data) {
      if (!isRecord(data) || !Array.isArray(data.choices)) return data;
      if (data.choices.length === 0) {
        if (!isPromptAnnotation(data)) return data;
        verdicts.readPrompts(data.prompt_filter_results ?? data.prompt_annotations);
        return data.usage == null ? null : data;
      }
      verdicts.readChoices(data.choices);
      if (!data.choices.some(isAnnotation)) {
        if (data.object === 'chat.completion.chunk' && typeof data.id === 'string' && data.id !== '') {
          identity = { id: data.id, created: Number(data.created), model: String(data.model) };
        }
        return data;
      }
      return verdictChunk(data, data.choices, identity);
    },
    contentFilter: () => verdicts.hits(),
  };
}

function isPromptAnnotation(chunk: Json): boolean {
  return 'prompt_filter_results' in chunk || 'prompt_annotations' in chunk;
}

/** A choice that annotates text already sent: no delta, or the filter's offsets with an empty one. */
function isAnnotation(choice: unknown): boolean {
  if (!isRecord(choice)) return false;
  if (!('delta' in choice)) return true;
  const delta = choice.delta;
  return 'content_filter_offsets' in choice && isRecord(delta) && Object.keys(delta).length === 0;
}

/**
 * A chunk with annotation-only choices: the ones that end the choice kept (an empty delta, the
 * annotations left out), the others dropped; null when nothing is left.
 */
function verdictChunk(chunk: Json, choices: unknown[], identity: ChunkIdentity | null): Json | null {
  const kept: Json[] = [];
  for (const choice of choices) {
    if (!isRecord(choice)) continue;
    if (!isAnnotation(choice)) kept.push(choice);
    else if (typeof choice.finish_reason === 'string') {
      kept.push({ index: choice.index, delta: {}, logprobs: null, finish_reason: choice.finish_reason });
    }
  }
  if (kept.length === 0) return null;
  return {
    id: identity?.id ?? chunk.id,
    object: 'chat.completion.chunk',
    created: identity?.created ?? chunk.created,
    model: identity?.model ?? chunk.model,
    choices: kept,
    usage: chunk.usage ?? null,
  };
}
