/**
 * What a provider's content filter withheld, as the request records keep it (the `content_filter`
 * column, migration 0013): one entry per category that filtered, never the text it judged. Set by
 * an adapter whose upstream names the category (Azure OpenAI's `content_filter_results` and
 * `prompt_filter_results`); absent for every other answer.
 */
export interface ContentFilterHit {
  /** `prompt` for the input (`prompt_filter_results`), `completion` for a choice of the answer. */
  source: 'prompt' | 'completion';
  /** The prompt's (`prompt_index`) or the choice's index. */
  index: number;
  /** The filter's category as the provider names it: `violence`, `jailbreak`, `protected_material_text`, ... */
  category: string;
  /** `safe`, `low`, `medium` or `high`; absent for the detectors that give none (jailbreak, protected material). */
  severity?: string;
  /** For the custom blocklists: the ids of the lists that matched. */
  blocklists?: string[];
}
