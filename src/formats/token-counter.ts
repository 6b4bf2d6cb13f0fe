import { createRequire } from 'node:module';
import { TokenCountMemo } from './token-count-memo.ts';

/**
 * The o200k_base tokenizer's internals this module counts with. gpt-tokenizer 4 declares them
 * private; `countTokens` is their public use, and it clones its splitting expression on every
 * call (below). token-counter.test.ts checks the count against `countTokens` for any text.
 */
interface BytePairCore {
  tokenSplitRegex: RegExp;
  getBpeRankFromString(piece: string): number | undefined;
  bytePairEncode(piece: string): readonly number[];
}

const requireLazily = createRequire(import.meta.url);
let loadedCount: ((text: string) => number) | undefined;

/**
 * The o200k_base tokenizer, loaded on first use: it is large (docs/decisions/hot-path.md), and a
 * call whose input clearly fits its context window never needs an exact count (see ByteBoundCounter).
 */
function countTokens(text: string): number {
  loadedCount ??= pieceCounter(
    (
      requireLazily('gpt-tokenizer/encoding/o200k_base') as {
        default: { bytePairEncodingCoreProcessor: BytePairCore };
      }
    ).default.bytePairEncodingCoreProcessor,
  );
  return loadedCount(text);
}

/**
 * Counts as gpt-tokenizer's `countTokens` does with no special token allowed or refused (text
 * such as `<|endoftext|>` is ordinary text: a client's string must never fail the estimate): one
 * token for each piece of its pre-tokenizer that is a rank, else the piece's byte-pair merge. The
 * pieces come from one global copy of its splitting expression, made here once: `String#matchAll`
 * makes a new one on every call (docs/decisions/hot-path.md, Tokenizer bounds).
 */
function pieceCounter(core: BytePairCore): (text: string) => number {
  const { source, flags } = core.tokenSplitRegex;
  const splitter = new RegExp(source, flags.includes('g') ? flags : `${flags}g`);
  return (text) => {
    let count = 0;
    splitter.lastIndex = 0;
    for (let match = splitter.exec(text); match !== null; match = splitter.exec(text)) {
      const piece = match[0];
      if (piece === '') {
        // As matchAll does: past an empty match by one code point.
        splitter.lastIndex += (text.codePointAt(splitter.lastIndex) ?? 0) > 0xffff ? 2 : 1;
        continue;
      }
      count += core.getBpeRankFromString(piece) === undefined ? core.bytePairEncode(piece).length : 1;
    }
    return count;
  };
}

/**
 * Longest run of characters of one class handed to the tokenizer unbroken, in UTF-16 code
 * units. The tokenizer's byte-pair merge is quadratic in the UTF-8 length of a pre-token, and
 * its pre-tokenizer keeps a run of letters (or of punctuation, or of whitespace) whole: a
 * megabyte of letters took minutes, and unspaced CJK text is one such run. Cutting a run every
 * 48 characters bounds the work and adds at most one token per cut; ordinary text, whose words
 * are shorter, is never cut.
 */
const MAX_RUN_CHARS = 48;

/**
 * Characters counted exactly per estimate (64 Ki UTF-16 code units, about 16k English tokens).
 * The rest is extrapolated at the tokens-per-character ratio seen so far. This bounds the CPU one
 * request can take on the hot path, whatever its text (docs/decisions/hot-path.md, Tokenizer bounds).
 */
const EXACT_CHARS_BUDGET = 65_536;

/**
 * Tokens per character when nothing was counted exactly: about four characters per token in
 * English. Also the ratio of a large input, counted without the tokenizer (CharCountCounter).
 */
export const DEFAULT_TOKENS_PER_CHAR = 0.25;

/**
 * The pre-tokenizer's character classes, approximated cheaply: ASCII whitespace, digits, other
 * ASCII (punctuation), and everything else taken as letters (non-ASCII is mostly letters; a
 * misclassified mark only moves where a cut falls).
 */
const WHITESPACE = 0;
const DIGIT = 1;
const PUNCTUATION = 2;
const LETTER = 3;

function characterClass(code: number): number {
  if (code === 32 || code === 10 || code === 9 || code === 13) return WHITESPACE;
  if (code >= 48 && code <= 57) return DIGIT;
  if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code >= 128) return LETTER;
  return PUNCTUATION;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Exact o200k_base count, cutting runs longer than MAX_RUN_CHARS (see above). */
function countExact(text: string): number {
  if (text.length <= MAX_RUN_CHARS) return countTokens(text);
  let total = 0;
  let segmentStart = 0;
  let run = 0;
  let previousClass = -1;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const currentClass = characterClass(code);
    if (currentClass !== previousClass) {
      run = 0;
      previousClass = currentClass;
    }
    // Never cut a surrogate pair in two.
    if (++run > MAX_RUN_CHARS && !isLowSurrogate(code)) {
      total += countTokens(text.slice(segmentStart, index));
      segmentStart = index;
      run = 1;
    }
  }
  const rest = segmentStart === 0 ? text : text.slice(segmentStart);
  return total + countTokens(rest);
}

/** What the request walkers of estimate-tokens.ts count with. */
export interface TextCounter {
  count(text: string): number;
  countJson(value: unknown): number;
}

/**
 * Characters (UTF-16 code units) the tokenizer is handed at a time: a text longer than this is
 * counted slice by slice, cut where a slice ends (at most one token more per cut). The cuts are the
 * same whether the slices are counted at once (`count`) or between turns of the event loop
 * (estimate-tokens.ts, `estimateInputTokensPaced`), so both give the same count; a slice is the
 * longest the tokenizer holds the main thread (docs/decisions/hot-path.md, Tokenizer bounds).
 */
export const SLICE_CHARS = 8_192;

/**
 * Characters of the texts whose exact counts are kept (TokenCountMemo): 4 Mi, the exact budgets
 * of 64 estimates, at most 8 MiB of strings.
 */
const REMEMBERED_CHARS = 4 * 1_048_576;

const rememberedCounts = new TokenCountMemo(REMEMBERED_CHARS);

/**
 * Counts the tokens of the strings of one request with the o200k_base encoding, exactly up to a
 * per-request budget of characters and by extrapolation beyond it. One instance per estimate.
 */
export class TokenCounter implements TextCounter {
  readonly #remembered: TokenCountMemo | null;
  #exactCharsLeft = EXACT_CHARS_BUDGET;
  #countedChars = 0;
  #countedTokens = 0;

  /**
   * `rememberCounts: false` for text that does not come again (an answer's generated text), which
   * would only push the input texts out of the memo.
   */
  constructor(options: { rememberCounts: boolean } = { rememberCounts: true }) {
    this.#remembered = options.rememberCounts ? rememberedCounts : null;
  }

  /** How many characters of `text` are counted exactly; the rest is extrapolated. */
  exactLengthOf(text: string): number {
    return Math.min(text.length, this.#exactCharsLeft);
  }

  count(text: string): number {
    const exactLength = this.exactLengthOf(text);
    let tokens = 0;
    for (let start = 0; start < exactLength; start += SLICE_CHARS) {
      tokens += this.countSlice(text, start, Math.min(start + SLICE_CHARS, exactLength));
    }
    return tokens + this.extrapolate(text.length - exactLength);
  }

  /** Counts `text` from `start` to `end` exactly, spending that much of the exact budget. */
  countSlice(text: string, start: number, end: number): number {
    const slice = start === 0 && end === text.length ? text : text.slice(start, end);
    const tokens =
      this.#remembered === null ? countExact(slice) : this.#remembered.countOf(slice, countExact);
    this.#exactCharsLeft -= end - start;
    this.#countedChars += end - start;
    this.#countedTokens += tokens;
    return tokens;
  }

  /** Tokens of `chars` characters past the exact budget, at the ratio counted so far. */
  extrapolate(chars: number): number {
    if (chars <= 0) return 0;
    const ratio = this.#countedChars > 0 ? this.#countedTokens / this.#countedChars : DEFAULT_TOKENS_PER_CHAR;
    return Math.ceil(chars * ratio);
  }

  countJson(value: unknown): number {
    return countJsonText(this, value);
  }
}

/** Counts a JSON value (tool definitions, schemas) as the text the upstream renders it into. */
function countJsonText(counter: TextCounter, value: unknown): number {
  if (value === undefined || value === null) return 0;
  return counter.count(JSON.stringify(value));
}

/**
 * Tokens from the character count alone, at DEFAULT_TOKENS_PER_CHAR, without the tokenizer: the
 * estimate of a large input (estimate-tokens.ts), and the measure of whether an input is large.
 */
export class CharCountCounter implements TextCounter {
  /** Characters (UTF-16 code units) counted so far. */
  chars = 0;

  count(text: string): number {
    this.chars += text.length;
    return Math.ceil(text.length * DEFAULT_TOKENS_PER_CHAR);
  }

  /**
   * A JSON value's characters, counted by walking it: stringifying a large one (megabytes of
   * tool definitions) costs far more than walking it, and the walk builds nothing.
   */
  countJson(value: unknown): number {
    if (value === undefined || value === null) return 0;
    const chars = jsonChars(value);
    this.chars += chars;
    return Math.ceil(chars * DEFAULT_TOKENS_PER_CHAR);
  }
}

/**
 * Keeps the texts a request walker counts, in order, for counting afterwards: a walk with it
 * returns the fixed allowances alone (message overheads, images), and its texts are counted after
 * (estimate-tokens.ts, at once or paced). Its `chars` and `cheapTokens` are what CharCountCounter would have counted,
 * so one walk serves both the large-input estimate and the exact one.
 */
export class TextCollector implements TextCounter {
  /** The texts, and the JSON values (counted as their JSON text), in the order walked. */
  readonly texts: (string | JsonText)[] = [];
  chars = 0;
  cheapTokens = 0;

  count(text: string): number {
    if (text.length > 0) this.#keep(text, text.length);
    return 0;
  }

  countJson(value: unknown): number {
    if (value !== undefined && value !== null) this.#keep(new JsonText(value), jsonChars(value));
    return 0;
  }

  #keep(text: string | JsonText, chars: number): void {
    this.texts.push(text);
    this.chars += chars;
    this.cheapTokens += Math.ceil(chars * DEFAULT_TOKENS_PER_CHAR);
  }
}

/** A JSON value kept by TextCollector, made text only when it is counted exactly. */
export class JsonText {
  readonly value: unknown;

  constructor(value: unknown) {
    this.value = value;
  }

  toString(): string {
    return JSON.stringify(this.value);
  }
}

/** About the length of `JSON.stringify(value)`: exact for strings without escapes, close for numbers. */
function jsonChars(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (Array.isArray(value)) {
    let total = 1 + value.length;
    for (const item of value) total += jsonChars(item);
    return total;
  }
  if (typeof value === 'object' && value !== null) {
    let total = 1;
    for (const key in value) total += key.length + 4 + jsonChars((value as Record<string, unknown>)[key]);
    return total;
  }
  return String(value).length;
}

/**
 * An upper bound on tokens without the tokenizer: a token is at least one UTF-8 byte, so a
 * string has at most as many tokens as bytes. Enough to pass a call whose input fits the
 * context window even counted this way.
 */
export class ByteBoundCounter implements TextCounter {
  count(text: string): number {
    return Buffer.byteLength(text, 'utf8');
  }

  countJson(value: unknown): number {
    return countJsonText(this, value);
  }
}
