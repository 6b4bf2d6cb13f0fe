/**
 * Exact token counts of texts counted before, by their text. A coding agent sends its whole
 * conversation on every call (the system prompt, the tool definitions, every earlier turn), and
 * the TPM and budget admission counted all of it again each time
 * (docs/decisions/hot-path.md, Token counts remembered by text).
 *
 * A text is found by a fingerprint of its length and 32 of its characters, then compared whole
 * (`===`): a `Map` keyed by the text itself hashes every character of each new string, a large
 * part of the count it saved (docs/decisions/hot-path.md, Token counts remembered by text). At
 * most BUCKET_TEXTS texts share a fingerprint, so texts made to collide cost a few comparisons,
 * not a scan of the memo.
 *
 * Bounded by the characters it holds, in two generations: texts go into the young one, and when it
 * holds half the bound the old one is dropped and the young one takes its place; a text found in
 * the old one moves back to the young one. A count is a function of its text alone, so an estimate
 * is the same whether its texts were found here or counted.
 */
export class TokenCountMemo {
  readonly #halfChars: number;
  #young = new Generation();
  #old = new Generation();

  /** `maxChars`: the characters of the texts kept, both generations together. */
  constructor(maxChars: number) {
    this.#halfChars = Math.floor(maxChars / 2);
  }

  /** The count of `text`, by `count` when it is not kept; kept after when it fits. */
  countOf(text: string, count: (text: string) => number): number {
    const print = fingerprint(text);
    const young = this.#young.find(print, text);
    if (young !== undefined) return young.tokens;
    const old = this.#old.find(print, text);
    if (old !== undefined) {
      this.#keep(print, old);
      return old.tokens;
    }
    const tokens = count(text);
    if (text.length <= this.#halfChars) this.#keep(print, { text: ownCopy(text), tokens });
    return tokens;
  }

  #keep(print: number, remembered: Remembered): void {
    if (this.#young.chars + remembered.text.length > this.#halfChars) {
      this.#old = this.#young;
      this.#young = new Generation();
    }
    this.#young.add(print, remembered);
  }
}

/**
 * A string of `text`'s characters that holds nothing else. V8 makes a slice of a longer string
 * point into it, so a kept slice of a megabyte prompt kept the megabyte (the regression test in
 * token-count-memo.test.ts). JSON's round trip makes a new string of the same characters, lone
 * surrogates included; it is paid only with the count it goes with.
 */
function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** Texts kept under one fingerprint at most; a new one pushes the first out. */
const BUCKET_TEXTS = 4;
const SAMPLED_CHARS = 32;

/** The length and up to SAMPLED_CHARS characters spread over the text, mixed into 32 bits. */
function fingerprint(text: string): number {
  const length = text.length;
  const step = Math.max(1, Math.floor(length / SAMPLED_CHARS));
  let print = length;
  for (let i = 0; i < length; i += step) print = Math.imul(print ^ text.charCodeAt(i), 0x9e3779b1);
  return print;
}

interface Remembered {
  text: string;
  tokens: number;
}

class Generation {
  readonly #buckets = new Map<number, Remembered[]>();
  /** Characters of the texts added. */
  chars = 0;

  find(print: number, text: string): Remembered | undefined {
    const bucket = this.#buckets.get(print);
    if (bucket === undefined) return undefined;
    for (const remembered of bucket) if (remembered.text === text) return remembered;
    return undefined;
  }

  add(print: number, remembered: Remembered): void {
    const bucket = this.#buckets.get(print);
    if (bucket === undefined) this.#buckets.set(print, [remembered]);
    else {
      if (bucket.length === BUCKET_TEXTS) bucket.shift();
      bucket.push(remembered);
    }
    this.chars += remembered.text.length;
  }
}
