/**
 * Exact token counts of texts counted before, by their text. A coding agent sends its whole
 * conversation on every call (the system prompt, the tool definitions, every earlier turn), and
 * the TPM and budget admission counted all of it again each time: the byte-pair tokenizer costs
 * about 300 instructions a character, a string key's hash and comparison a few
 * (docs/decisions/hot-path.md, Token counts remembered by text).
 *
 * Bounded by the characters it holds, in two generations: texts go into the young one, and when it
 * holds half the bound the old one is dropped and the young one takes its place; a text found in
 * the old one moves back to the young one. A count is a function of its text alone, so an estimate
 * is the same whether its texts were found here or counted.
 */
export class TokenCountMemo {
  readonly #halfChars: number;
  #young = new Map<string, number>();
  #old = new Map<string, number>();
  #youngChars = 0;

  /** `maxChars`: the characters of the texts kept, both generations together. */
  constructor(maxChars: number) {
    this.#halfChars = Math.floor(maxChars / 2);
  }

  /** The count of `text`, by `count` when it is not kept; kept after when it fits. */
  countOf(text: string, count: (text: string) => number): number {
    const young = this.#young.get(text);
    if (young !== undefined) return young;
    const old = this.#old.get(text);
    const tokens = old ?? count(text);
    if (text.length <= this.#halfChars) this.#keep(text, tokens);
    return tokens;
  }

  #keep(text: string, tokens: number): void {
    if (this.#youngChars + text.length > this.#halfChars) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngChars = 0;
    }
    this.#young.set(text, tokens);
    this.#youngChars += text.length;
  }
}
