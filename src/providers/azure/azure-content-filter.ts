import type { UpstreamChatCompletion } from '../../formats/chat-completions/wire.ts';
import { isRecord } from '../../formats/json.ts';
import type { ContentFilterHit } from '../types.ts';

/**
 * The categories Azure OpenAI's content filter withheld ("Content filtering" and "Content filtering
 * annotations" in the Azure OpenAI documentation), collected from the `content_filter_results` of
 * an answer's choices (or a stream's chunks) and of its `prompt_filter_results` (`prompt_annotations`
 * in older API versions): each category with `filtered: true`, with its severity where the filter
 * gives one (hate, sexual, violence, self_harm), its name alone for a detector (jailbreak,
 * indirect_attack, protected_material_text, protected_material_code), the lists that matched for
 * `custom_blocklists`. Annotations that filtered nothing, a `citation` and an `error` entry (the
 * filter could not run) are left out: the record says what was withheld, never the text. A
 * category filtered twice (a stream's chunks) is kept once, as last seen.
 */
export class AzureFilterVerdicts {
  #hits: Map<string, ContentFilterHit> | null = null;

  /** An answer's or a stream's first chunk's `prompt_filter_results` (or `prompt_annotations`). */
  readPrompts(annotations: unknown): void {
    if (!Array.isArray(annotations)) return;
    for (const annotation of annotations) {
      if (isRecord(annotation)) {
        this.#read(annotation.content_filter_results, 'prompt', indexOf(annotation.prompt_index));
      }
    }
  }

  /** The `content_filter_results` of an answer's or a chunk's choices. */
  readChoices(choices: readonly unknown[]): void {
    for (const choice of choices) {
      if (isRecord(choice) && choice.content_filter_results !== undefined) {
        this.#read(choice.content_filter_results, 'completion', indexOf(choice.index));
      }
    }
  }

  /** What filtered, in the order first seen; null when nothing did. */
  hits(): readonly ContentFilterHit[] | null {
    return this.#hits === null ? null : [...this.#hits.values()];
  }

  #read(results: unknown, source: ContentFilterHit['source'], index: number): void {
    if (!isRecord(results)) return;
    for (const category in results) {
      const hit = hitOf(results[category], source, index, category);
      if (hit === null) continue;
      this.#hits ??= new Map();
      this.#hits.set(`${source}/${index}/${category}`, hit);
    }
  }
}

/** The filter's verdicts on a whole Chat answer (OperationAdapter.contentFilterOf). */
export function azureContentFilterOf(answer: UpstreamChatCompletion): readonly ContentFilterHit[] | null {
  const verdicts = new AzureFilterVerdicts();
  const prompt = answer as Record<string, unknown>;
  verdicts.readPrompts(prompt.prompt_filter_results ?? prompt.prompt_annotations);
  verdicts.readChoices(answer.choices);
  return verdicts.hits();
}

function indexOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
}

/**
 * One category's result as a hit, or null when it did not filter. `custom_blocklists` is an object
 * with `details` in current API versions, a list of `{ filtered, id }` in older ones.
 */
function hitOf(
  result: unknown,
  source: ContentFilterHit['source'],
  index: number,
  category: string,
): ContentFilterHit | null {
  if (Array.isArray(result)) {
    const lists = blocklistIds(result);
    return lists.length === 0 ? null : { source, index, category, blocklists: lists };
  }
  if (!isRecord(result) || result.filtered !== true) return null;
  const hit: ContentFilterHit = { source, index, category };
  if (typeof result.severity === 'string') hit.severity = result.severity;
  if (Array.isArray(result.details)) {
    const lists = blocklistIds(result.details);
    if (lists.length > 0) hit.blocklists = lists;
  }
  return hit;
}

function blocklistIds(entries: readonly unknown[]): string[] {
  const ids: string[] = [];
  for (const entry of entries) {
    if (isRecord(entry) && entry.filtered === true && typeof entry.id === 'string') ids.push(entry.id);
  }
  return ids;
}
